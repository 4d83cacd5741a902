"""agentur: a self-hosted AI platform — AI gateway, agent, knowledge store, visitor assistants."""

__version__ = "0.1.0"
