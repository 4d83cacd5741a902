"""The code sandbox (T8): untrusted Python in Linux namespaces (bubblewrap) under rlimits."""
