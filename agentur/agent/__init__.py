"""The agent: a ReAct loop with native function calling over the AI gateway."""
