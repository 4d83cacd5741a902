"""Tables of the ai part."""
