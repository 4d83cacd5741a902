"""Tables of the knowledge part."""
