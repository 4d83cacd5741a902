"""The visitor assistant runtime: definitions, the turn pipeline, the API catalog,
pre-flight routing and its replay."""
