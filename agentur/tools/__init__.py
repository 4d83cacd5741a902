"""Agent tools: one file per tool family; each module exposes `TOOLS`, a list of `Tool`."""
