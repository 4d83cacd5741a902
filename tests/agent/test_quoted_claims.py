"""Quotes in an agent's answer must come from what the run read; a read that returns the same
again says so."""

from __future__ import annotations

from agentur.agent.check_final_answer import QUOTE_NOTE
from agentur.agent.config import AgentConfig
from agentur.agent.quoted_claims import unsupported_claim, unsupported_figure, unsupported_quote
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from tests.agent.support import call, deps, read_tool, scripted

CONTEXT = RequestContext("u1", "m1", UserRole.member, timezone="Europe/Zurich")
HOURS = "The Lenzburg shop is open Monday to Friday 8:00 to 18:30 and Saturday 9:00 to 16:00."
REQUEST = "What is the phone number of our Geneva branch, per my files?"
# Qwen2.5-Coder-1.5B, its files holding no phone number
INVENTED = 'From the [hours.md] document, I find the following:\n"Phone: +41 23 456 7890"'


def test_a_quote_must_be_in_what_was_read_or_asked() -> None:
    assert unsupported_quote(INVENTED, HOURS, REQUEST) == "Phone: +41 23 456 7890"
    assert unsupported_quote('It says "Saturday 9:00 to 16:00."', HOURS, REQUEST) is None
    # the user's own words, short labels and code are not checked
    assert unsupported_quote('You asked for "our Geneva branch".', HOURS, REQUEST) is None
    assert unsupported_quote('The file "hours.md" has them.', HOURS, REQUEST) is None
    assert unsupported_quote('Run `echo "a b c d 123"`.', HOURS, REQUEST) is None
    # HTML in an answer: an attribute's value is no quote
    assert unsupported_quote('<img src=x onerror="window.__xss = 1">', HOURS, REQUEST) is None
    assert unsupported_quote("Laut Datei: «Samstag 9 bis 17 Uhr»", HOURS, REQUEST) is not None


READ = read_tool({"name": "hours.md", "content": HOURS})


async def test_an_invented_quote_is_corrected_then_marked() -> None:
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=INVENTED)]
    ai, provider = scripted([*turns, ScriptedTurn(text=INVENTED)])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed" and result.rounds == 3
    assert result.final_text.endswith(QUOTE_NOTE.format(quote="Phone: +41 23 456 7890"))
    correction = [m for m in provider.received[2].messages if not m.volatile][-1]
    assert correction.role is Role.user and "nothing this run read" in correction.content


async def test_a_corrected_answer_without_the_quote_is_taken() -> None:
    honest = "Your files hold no phone number for a Geneva branch; hours.md has opening hours only."
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=INVENTED)]
    ai, _ = scripted([*turns, ScriptedTurn(text=honest)])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed" and result.final_text == honest


async def test_a_read_that_returns_the_same_again_says_so() -> None:
    turns = [
        ScriptedTurn.calls(call("read_file", "c1")),
        ScriptedTurn.calls(call("read_file", "c2")),
    ]
    ai, provider = scripted([*turns, ScriptedTurn(text="Saturday 9:00 to 16:00.")])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed"
    first, second = [m.content for m in provider.received[2].messages if m.role is Role.tool]
    assert "same call returned the same in round 1" in second and "agentur" not in first


def test_a_long_figure_must_be_in_what_was_read_or_asked() -> None:
    # Qwen2.5-Coder-1.5B, its search for a phone number having found nothing
    invented = "In hours.md, the phone number is `x`. So it is +41 21 37 88 00."
    assert unsupported_figure(invented, HOURS, REQUEST) == "+41 21 37 88 00"
    assert unsupported_claim(invented, HOURS, REQUEST) == "+41 21 37 88 00"
    read = HOURS + '\n{"phone": "+41.2137.8800"}'
    assert unsupported_figure(invented, read, REQUEST) is None  # the same digits, grouped anew
    assert unsupported_figure("Order 4711 was sent.", HOURS, REQUEST) is None  # short
    assert unsupported_figure("Today is 2026-12-03, 03.12.2026.", HOURS, REQUEST) is None
    assert unsupported_figure("It costs CHF 1'250'000.", HOURS, "Was 1,250,000?") is None
    assert unsupported_figure("It costs CHF 1'250'000.", HOURS, REQUEST) == "1'250'000"
    assert unsupported_figure("See `+41 21 37 88 00`.", HOURS, REQUEST) is None  # code


async def test_an_invented_phone_number_is_corrected_then_marked() -> None:
    invented = "In hours.md, the phone number is +41 21 37 88 00."
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=invented)]
    ai, provider = scripted([*turns, ScriptedTurn(text=invented)])
    result = await run_agent(REQUEST, AgentConfig(), CONTEXT, deps(ai, [READ]))
    assert result.status == "completed"
    correction = provider.received[2].messages[-2].content
    assert '"+41 21 37 88 00"' in correction and "nothing this run read" in correction
    assert result.final_text.endswith(QUOTE_NOTE.format(quote="+41 21 37 88 00"))
