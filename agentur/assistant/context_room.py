"""Whether another call of a knowledge answer still fits the model's context, from what the
server itself counted.

A small local server (llama.cpp with a few thousand tokens of context) refuses a prompt longer
than its context with HTTP 400. The gateway's check before each call estimates the prompt from
its characters (about four per token); a small model's own output — which every step of the
loop puts back into the prompt — can undercut that several times over (text in another script,
digits, repeated markup), so the loop grew past the server's context while the estimate said it
fitted. The server's count of the last call (its prompt and its output, both in the next
prompt) plus a bound of what was appended since (one token per byte of each tool result, as
`prompt_token_bound` counts text) says whether the next call fits with room for its answer;
when it does not, the loop stops asking and the visitor gets the extractive answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentur.ai.billing.pricing import MESSAGE_OVERHEAD_TOKENS
from agentur.ai.messages import AiResponse
from agentur.ai.service import AiService


@dataclass
class ContextRoom:
    ai: AiService
    output_tokens: int  # each call's output limit
    counted: int = 0  # the server's count of the last call: prompt + output
    appended: int = 0  # at most this many tokens appended since
    window: int | None = None  # the context of the model that answered
    answer_room: int = 0

    def count(self, response: AiResponse) -> None:
        self.counted = response.usage.input_tokens + response.usage.output_tokens
        self.appended = 0
        spec = next((s for s in self.ai.models() if s.id == response.model), None)
        if spec is not None:
            self.window = spec.context_window
            self.answer_room = min(self.output_tokens, spec.max_output_tokens)

    def append(self, text: str) -> None:
        self.appended += len(text.encode("utf-8", "surrogatepass")) + MESSAGE_OVERHEAD_TOKENS

    def full(self) -> bool:
        if self.window is None or not self.counted:
            return False
        return self.counted + self.appended + self.answer_room > self.window
