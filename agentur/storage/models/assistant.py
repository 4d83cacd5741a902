"""Tables of the assistant part."""
