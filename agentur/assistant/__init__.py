"""The visitor assistant runtime (S1–S9): definitions, the turn pipeline, the API catalog,
pre-flight routing and its replay."""
