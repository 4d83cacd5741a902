"""The `agentur` command line."""
