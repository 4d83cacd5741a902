"""Feature instances and their business tables (T6), and the typed action catalog (A10)."""
