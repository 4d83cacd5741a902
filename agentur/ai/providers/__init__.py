"""Provider adapters: one vendor or wire format per file, behind `ModelProvider`."""
