"""Local HTTP servers that speak each provider's wire format, for end-to-end tests.

One `WireServer` class (real HTTP on 127.0.0.1, port 0, in a thread) records every request it
RECEIVED and answers from a queue of scripted replies; the wire format lives in the reply
builders. Fixtures in `tests/ai/conftest.py`: `openai_server`, `mistral_server`,
`perplexity_server` (OpenAI format), `anthropic_server`, `google_server`, `tavily_server`.
`server.base_url` follows each vendor's base-URL convention, so it plugs straight into the
adapter (`OpenAIProvider(base_url=openai_server.base_url, …)`):

    from tests.ai.wire_servers import openai_text, openai_tool_call, openai_error, openai_stream

    async def test_example(openai_server):
        openai_server.enqueue(
            openai_error(429, "slow down", retry_after=2),   # first call
            openai_tool_call("search", {"q": "x"}),          # second call
            openai_stream("Hel", "lo", input_tokens=12),     # third call (SSE)
        )
        provider = OpenAIProvider(api_key="sk-test", base_url=openai_server.base_url,
                                  models=[spec])
        ...
        sent = openai_server.last.json            # parsed body of the last request
        assert openai_server.last.path == "/v1/chat/completions"
        assert openai_server.last.headers["authorization"] == "Bearer sk-test"
        assert len(openai_server.received) == 3

Replies (`Reply`): `Reply.json(payload, status=, headers=)`, `Reply.sse(events)`, and on any
reply `.delayed(seconds)` (client timeout), `.broken_after(n_events)` (connection cut
mid-stream, no terminating chunk), `.stalled(seconds_between_events)`. A queue step may be a
callable `(ReceivedRequest) -> Reply` to answer from what was sent (e.g. echo a placeholder).
With the queue empty, `server.default_reply` answers (set it for benches), else a 400 naming
the unscripted request. `server.pending` counts unused replies.
"""

from tests.ai.wire_servers.anthropic_replies import (
    anthropic_error,
    anthropic_message,
    anthropic_stream,
    anthropic_stream_error,
    anthropic_text,
    anthropic_tool_use,
    anthropic_tool_uses,
)
from tests.ai.wire_servers.audio_replies import (
    form_fields,
    openai_image,
    openai_speech,
    openai_transcription,
)
from tests.ai.wire_servers.google_replies import (
    google_error,
    google_function_call,
    google_function_calls,
    google_message,
    google_stream,
    google_text,
)
from tests.ai.wire_servers.openai_replies import (
    openai_embeddings,
    openai_error,
    openai_message,
    openai_stream,
    openai_text,
    openai_tool_call,
    openai_tool_calls,
    openai_usage,
)
from tests.ai.wire_servers.server import ReceivedRequest, Reply, ReplyStep, WireServer
from tests.ai.wire_servers.tavily_replies import tavily_error, tavily_results

__all__ = [
    "ReceivedRequest",
    "Reply",
    "ReplyStep",
    "WireServer",
    "anthropic_error",
    "anthropic_message",
    "anthropic_stream",
    "anthropic_stream_error",
    "anthropic_text",
    "anthropic_tool_use",
    "anthropic_tool_uses",
    "form_fields",
    "google_error",
    "google_function_call",
    "google_function_calls",
    "google_message",
    "google_stream",
    "google_text",
    "openai_embeddings",
    "openai_error",
    "openai_image",
    "openai_message",
    "openai_speech",
    "openai_stream",
    "openai_text",
    "openai_tool_call",
    "openai_tool_calls",
    "openai_transcription",
    "openai_usage",
    "tavily_error",
    "tavily_results",
]
