"""Tables of the agent part."""
