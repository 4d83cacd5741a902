"""The code sandbox: untrusted Python in Linux namespaces (bubblewrap) under rlimits."""
