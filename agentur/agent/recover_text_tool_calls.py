"""Tool calls a model wrote as text, in the agent loop.

For models whose spec allows it (`recover_text_tool_calls`, on for OpenAI-compatible servers)
calls spelled out in the text are recovered and run like native ones. Text that still looks
like a tool call is never accepted as the run's answer: the loop sends one corrective message,
and when the next reply is again a call written as text the run ends `failed`, saying why.
"""

from __future__ import annotations

from dataclasses import replace

from agentur.agent.dependencies import RunStatus
from agentur.agent.model_round import spec_for
from agentur.agent.redact import redact_text
from agentur.agent.run_state import RunState, StopRun
from agentur.agent.trace import TraceKind
from agentur.ai.messages import AiResponse
from agentur.ai.text_tool_calls import find_text_tool_calls
from agentur.tool_loop.prepare_step import StepOffer

CORRECTION = (
    "Your last reply wrote a tool call as text, so it was not run and is not an answer. "
    "To use a tool, call it through the tool-calling interface; to finish, reply with the "
    "answer in plain text."
)
FAILED_REASON = (
    "the model wrote a tool call as text again after being corrected; the text was not "
    "accepted as an answer (a model or server without working tool calls?)"
)


class RetryRound(Exception):
    """The round's answer was replaced by a corrective message; the loop asks again."""


def settle_text_tool_calls(run: RunState, response: AiResponse, offer: StepOffer) -> AiResponse:
    """The response to act on (with recovered calls). Raises `RetryRound` after adding the
    corrective message, `StopRun` when the correction did not help."""
    if response.tool_calls:
        run.text_call_corrected = False
        return response
    found = find_text_tool_calls(response.text, offer.names, id_prefix=f"text_r{run.rounds}")
    if not found.looks_like_call:
        # without empty call tags (`<tools></tools>`), which are neither a call nor an answer
        return (
            replace(response, text=found.remaining)
            if found.remaining != response.text.strip()
            else response
        )
    spec = spec_for(run, response.model)
    recovered = bool(found.calls) and spec is not None and spec.recover_text_tool_calls
    run.trace.add(
        TraceKind.text_tool_calls,
        {
            "recovered": [call.name for call in found.calls] if recovered else [],
            "text": redact_text(response.text[:2_000]),
        },
        round_index=run.rounds,
    )
    if recovered:
        run.text_call_corrected = False
        return replace(response, text=found.remaining, tool_calls=found.calls)
    if run.text_call_corrected:
        raise StopRun(RunStatus.failed, FAILED_REASON)
    run.text_call_corrected = True
    run.conversation.add_assistant(response.text, ())
    run.conversation.add_user(CORRECTION)
    raise RetryRound
