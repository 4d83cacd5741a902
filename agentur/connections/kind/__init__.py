"""The kinds of connection: one module each, declaring `KIND` (see connection_kind.py)."""
