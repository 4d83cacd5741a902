"""The knowledge store: indexing, search, layered agent context, agent memory."""
