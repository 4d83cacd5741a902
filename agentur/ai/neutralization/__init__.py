"""The neutralization gate: personal data in anything sent to a model is replaced by
stable placeholders (or the call is blocked), and placeholders in answers and tool-call
arguments are re-identified. `AiService` is the only caller; nothing else neutralizes."""
