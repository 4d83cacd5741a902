"""Persistence: the database (SQLite embedded, PostgreSQL scale-out), migrations and file blobs."""
