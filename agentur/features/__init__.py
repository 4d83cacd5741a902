"""Feature instances and their business tables, and the typed action catalog."""
