"""HTTP API (FastAPI): thin routes over the services; errors as problem+json."""
