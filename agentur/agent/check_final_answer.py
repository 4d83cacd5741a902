"""What a run may end with: the check of a final answer (a reply without tool calls).

A reply that is no answer (`answer_problems.py`: empty, copied context, tool-protocol markup,
tool advice, a raw result) gets one corrective message; when the next reply is again not an
answer, what is left of it without those lines is taken if it is a grounded answer
(`salvage_answer.py`); else, when the run changed something, it ends `completed` with
agentur's list of the changes — otherwise `failed` with the reason.

After a round in which every tool call failed, the answer must say that something failed; if
it does not even after the correction, the run still ends `completed`, with the failure stated
by agentur under the model's text. Likewise a run asked to change something (write a file,
copy, send; see `requested_change.py`) in which no tool that changes anything succeeded: one
corrective message naming the tools that would, then the answer is accepted only with agentur's
note that nothing was changed — unless the answer itself says what could not be done. A reply
that announces a step instead of taking it ("I would need to search notes.txt";
`deferred_step.py`) gets one corrective message, and the next reply is taken.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NoReturn

from agentur.agent.answer_problems import answer_problem, states_failure
from agentur.agent.deferred_step import deferred_step
from agentur.agent.dependencies import RunStatus
from agentur.agent.quoted_claims import unsupported_claim
from agentur.agent.recover_text_tool_calls import RetryRound
from agentur.agent.redact import redact_text
from agentur.agent.requested_change import asks_for_change
from agentur.agent.run_state import RunState, StopRun
from agentur.agent.salvage_answer import salvaged_answer, without_hints
from agentur.agent.trace import TraceKind
from agentur.ai.messages import Role

CORRECTION = (
    "Your last reply is not an answer the user can be given: {problem}. Reply to the user's "
    "request in plain text, in the user's language, from what the tools returned — do not "
    "repeat agentur's context or tool-protocol markup, and never write a tool's response "
    "yourself: results come from agentur after you call the tool. To use a tool, call it "
    "through the tool-calling interface, or reply with nothing but the call as JSON: "
    '{{"name": "<tool>", "arguments": {{...}}}}.'
)
FAILED_TOOLS_CORRECTION = (
    "Every tool call of your last round failed ({errors}). Fix the calls and try again, or "
    "tell the user plainly what could not be done and why."
)
FAILURE_NOTE = "(agentur: the last tool calls failed — {errors})"
CHANGE_CORRECTION = (
    "The user asked you to change something in the workspace, but no tool that changes "
    "anything has succeeded in this run: nothing has been done yet. Do it now by calling the "
    "tool for it ({tools}), or tell the user plainly why it cannot be done."
)
QUOTE_CORRECTION = (
    'Your answer gives "{quote}", but nothing this run read (tool results, knowledge '
    "passages) contains it. Answer only from what the tools returned, quote only what they "
    "returned, and say plainly what was not found."
)
STEP_CORRECTION = (
    'Your reply says "{phrase}" instead of answering. Do not describe a step: take it now by '
    "calling the tool, or — when the tools have already returned what is needed (their results "
    "are above) — answer the user's request from them."
)
QUOTE_NOTE = "(agentur: «{quote}» is in nothing this run read)"
DONE_NOTE = (
    "(agentur: the model's reply could not be used — {problem}. What this run changed: {done}.)"
)
CHANGE_NOTE = "(agentur: nothing was changed in this run — no tool that makes changes succeeded)"


def _writing_tools(run: RunState) -> list[str]:
    """The offered tools that change something, when the request asked for a change that no
    tool has made yet; else empty."""
    if run.succeeded_calls.by_key or run.offer is None:
        return []
    writers = sorted(tool.name for tool in run.offer.tools if not tool.read_only)
    return writers if writers and asks_for_change(run.prepared.prompt) else []


def settle_final_answer(run: RunState, text: str, knowledge: str = "") -> str:
    """The text the run ends with; `knowledge` is the round's knowledge block. Raises
    `RetryRound` after adding a corrective message, `StopRun` when the corrected reply is still
    no answer."""
    offered = run.offer.by_name if run.offer else {}
    request = run.prepared.prompt
    problem = answer_problem(text, request, offered)
    failed_errors = run.failed_round_errors
    said_failure = states_failure(text)
    unmade = [] if problem or failed_errors or said_failure else _writing_tools(run)
    read = _what_the_run_read(run, knowledge)
    quote = None if problem or unmade else unsupported_claim(text, read, request)
    if problem is None and (not failed_errors or said_failure) and not unmade and not quote:
        run.answer_corrected = False
        if not run.step_corrected and (phrase := deferred_step(text)):
            run.step_corrected = True
            run.trace.add(
                TraceKind.answer_rejected,
                {"problem": f"announces a step: {phrase}", "text": redact_text(text[:2_000])},
                round_index=run.rounds,
            )
            _correct(run, text, STEP_CORRECTION.format(phrase=phrase[:120]))
        return text
    reason = problem or (
        "tool calls failed"
        if failed_errors
        else "no change made as asked"
        if unmade
        else f"quotes what nothing read holds: {quote}"
    )
    run.trace.add(
        TraceKind.answer_rejected,
        {"problem": reason, "text": redact_text(text[:2_000])},
        round_index=run.rounds,
    )
    if unmade:
        if run.change_corrected:
            return f"{text.rstrip()}\n\n{CHANGE_NOTE}"
        run.change_corrected = True
        _correct(run, text, CHANGE_CORRECTION.format(tools=", ".join(unmade[:8])))
    if quote and not failed_errors:
        if run.quote_corrected:
            return f"{text.rstrip()}\n\n{QUOTE_NOTE.format(quote=quote[:200])}"
        run.quote_corrected = True
        _correct(run, text, QUOTE_CORRECTION.format(quote=quote[:200]))
    errors = "; ".join(failed_errors)[:600]
    if run.answer_corrected:
        if problem is not None:
            return _salvaged(run, text, problem, read, offered)
        return f"{text.rstrip()}\n\n{FAILURE_NOTE.format(errors=errors)}"
    run.answer_corrected = True
    run.rejected_answer = text
    _correct(
        run,
        text,
        CORRECTION.format(problem=problem)
        if problem is not None
        else FAILED_TOOLS_CORRECTION.format(errors=errors),
    )


def _what_the_run_read(run: RunState, knowledge: str) -> str:
    """The run's tool results and the round's knowledge passages (not the hints of other
    workflows): what an answer's facts and quotes may come from."""
    tool_results = [m.content for m in run.conversation.turns if m.role is Role.tool]
    return "\n".join([*tool_results, without_hints(knowledge)])


def _salvaged(run: RunState, text: str, problem: str, read: str, offered: Collection[str]) -> str:
    """What is left of the corrected reply, else of the one that was corrected; `StopRun`
    when neither holds a grounded answer."""
    salvaged = next(
        (
            answer
            for reply in (text, run.rejected_answer)
            if (answer := salvaged_answer(reply, run.prepared.prompt, offered, read))
        ),
        None,
    )
    if salvaged is None and run.succeeded_calls.by_key:
        # The work was done; only the words about it are unusable: say what was done.
        done = "; ".join(change.describe() for change in run.succeeded_calls.by_key.values())
        return DONE_NOTE.format(problem=problem, done=done[:1_000])
    if salvaged is None:
        raise StopRun(
            RunStatus.failed, f"the model's answer was not accepted after a correction: {problem}"
        )
    run.trace.add(
        TraceKind.answer_rejected,
        {"problem": problem, "salvaged": redact_text(salvaged[:2_000])},
        round_index=run.rounds,
    )
    if quote := unsupported_claim(salvaged, read, run.prepared.prompt):
        return f"{salvaged}\n\n{QUOTE_NOTE.format(quote=quote[:200])}"
    return salvaged


def _correct(run: RunState, text: str, correction: str) -> NoReturn:
    run.conversation.add_assistant(text, ())
    run.conversation.add_user(correction)
    raise RetryRound
