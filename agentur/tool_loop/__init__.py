"""The one bounded tool loop below the agent and the assistant: a step is prepared (which
tools it offers), the model takes a turn, its tool calls run through the lifecycle wrapper,
until the model answers or a stop condition holds. Events, the money budget, the result
windows and the typed run context handed to tools live here once; the callers configure the
loop (`loop.LoopDriver`) and never repeat it."""
