"""The knowledge store (K1-K5): indexing, search, layered agent context, agent memory."""
