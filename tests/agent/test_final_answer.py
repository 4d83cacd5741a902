"""What a run may end with: replies carrying agentur's context or tool-protocol markup, empty
replies and replies that hide failed tool calls get one corrective round, then the run ends
`failed` (or `completed` with the failure stated) with the reason."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from agentur.agent import check_final_answer as check
from agentur.agent.answer_problems import CORRECTION_PHRASES, answer_problem
from agentur.agent.check_final_answer import CHANGE_NOTE, CORRECTION, DONE_NOTE
from agentur.agent.config import AgentConfig
from agentur.agent.repeated_calls import Change
from agentur.agent.run_agent import run_agent
from agentur.agent.salvage_answer import salvaged_answer, without_hints
from agentur.ai.messages import Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.errors import NotFoundError
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import call, deps, scripted

CONTEXT = RequestContext("u1", "m1", UserRole.member, timezone="Europe/Zurich")
# Replies seen from a real small model (Qwen2.5-Coder 1.5B on llama-server).
ROUND_MEMORY_ECHO = (
    "Das Budget beträgt CHF 72,500.\n"
    'search_knowledge (ok): {"hits": []}\n'
    "- round 4 (0.74): I searched the knowledge store."
)
FAKE_TOOL_RESPONSE = '<tool_response>{"result_id": "r1", "ok": true}</tool_response>'


class Nothing(BaseModel):
    pass


async def _missing(args: Nothing, context: ToolContext) -> dict:
    raise NotFoundError("file summary.txt not found")


MISSING = Tool("open_report", "Open the report.", Nothing, _missing, read_only=True)


class Written(BaseModel):
    name: str
    content: str


WRITTEN: list[str] = []


async def _write(args: Written, context: ToolContext) -> dict:
    WRITTEN.append(args.name)
    return {"file_id": "f9", "name": args.name}


WRITE = Tool("write_file", "Write a file.", Written, _write)
CREATE_FILE = "Create a file named summary.txt with exactly this text: Meeting moved to Friday."
# Qwen2.5-Coder-1.5B asked to write a file: the file's text as the answer, no call.
PRINTED_INSTEAD = "Here is summary.txt:\n```\nMeeting moved to Friday.\n```"


@pytest.mark.parametrize(
    "reply",
    [
        ROUND_MEMORY_ECHO,
        FAKE_TOOL_RESPONSE,
        "",
        "****",  # Qwen2.5-Coder-1.5B's last reply in a German task: markdown, nothing in it
        # the same model's answer to a question its files could not answer: the clock block
        "Today is Thursday, 2026-12-03. The user's local time is 12:16 in the time zone UTC "
        "(UTC+00:00). Interpret relative dates such as 'today', 'last month' or 'Q1'",
        "[Context for this round, from agentur — not written by the user]\nToday is Monday.",
        "### Hints from other workflows\n- workflow w1 (0.81): summary.txt was created",
        '<function=write_file>{"content": "x"}</function>',
        # A 0.5B model's reply on llama-server: a call to a tool not offered, broken JSON.
        '{"name": "create_file", "arguments": {"content": "Meeting moved.", "name": "s.txt"}]}',
        # Qwen2.5-Coder-1.5B asked when a shop opens per hours.md: a file's metadata.
        '```\n{"file_id": "f68b3e34", "name": "summary.txt", "folder_id": null, "size": 25}\n```',
        '[{"id": "f1", "name": "hours.md"}]',
        # the same model's answer to "Which files do I have?": a listing it made up
        '```\n{"files": [{"file_id": "c393", "name": "notes.txt"}], "total": 1}\n```',
        # Qwen2.5-Coder-0.5B's "answer" to a German question: made-up results in a row
        '{"connections": []} {"budget": "CHF 48,000"} {"owner": "Mara Keller"}',
        # Qwen2.5-Coder-1.5B at temperature 0 after a correction: the correction, given back
        "The user's last reply is not an answer the user can be given: it contains "
        "tool-protocol markup.",
    ],
)
def test_replies_that_are_no_answer(reply: str) -> None:
    assert answer_problem(reply, "When is the shop open on Saturday, per hours.md?") is not None


def test_json_is_an_answer_when_the_request_asks_for_json() -> None:
    reply = '{"file_id": "f1", "name": "hours.md"}'
    assert answer_problem(reply, "Give me the file's metadata as JSON.") is None


@pytest.mark.parametrize(
    "reply",
    [
        "Das Projekt Seeblick leitet Anna Keller; das Budget beträgt CHF 72,500 [1].",
        "I created summary.txt (file id 3f2a) in the folder Projekte.",
        'The JSON you asked for: {"total": 3}',
        '{"budget": "CHF 48,000"} is what notes.txt says.',
        "## Summary\nThree invoices are open.",
    ],
)
def test_real_answers_pass(reply: str) -> None:
    assert answer_problem(reply) is None


async def test_an_answer_echoing_round_memory_is_corrected_then_the_run_fails() -> None:
    ai, provider = scripted(
        [ScriptedTurn(text=ROUND_MEMORY_ECHO), ScriptedTurn(text=FAKE_TOOL_RESPONSE)]
    )
    result = await run_agent("Wie hoch ist das Budget?", AgentConfig(), CONTEXT, deps(ai, []))
    assert result.status == "failed"
    assert "not accepted" in (result.error or "") and "markup" in (result.error or "")
    assert ROUND_MEMORY_ECHO not in result.final_text and "tool_response" not in result.final_text
    corrected = [m for m in provider.received[1].messages if not m.volatile]
    assert corrected[-1].role is Role.user and corrected[-1].content.startswith(
        CORRECTION.split(":")[0]
    )


async def test_a_fake_tool_response_is_not_the_answer_but_a_corrected_reply_is() -> None:
    ai, _ = scripted([ScriptedTurn(text=FAKE_TOOL_RESPONSE), ScriptedTurn(text="Es ist erledigt.")])
    result = await run_agent("Schreib die Datei.", AgentConfig(), CONTEXT, deps(ai, []))
    assert result.status == "completed" and result.final_text == "Es ist erledigt."


async def test_an_answer_hiding_that_every_tool_call_failed_gets_the_failure_stated() -> None:
    ai, provider = scripted(
        [
            ScriptedTurn.calls(call("open_report", "c1")),
            ScriptedTurn(text="Here is the summary you wanted."),
            ScriptedTurn(text="Here is the summary you wanted."),
        ]
    )
    result = await run_agent("Summarize the report.", AgentConfig(), CONTEXT, deps(ai, [MISSING]))
    assert result.status == "completed" and result.rounds == 3
    assert "the last tool calls failed" in result.final_text
    assert "summary.txt not found" in result.final_text
    correction = [m for m in provider.received[2].messages if not m.volatile][-1]
    assert "Every tool call of your last round failed" in correction.content


async def test_an_answer_that_states_the_failure_is_accepted_at_once() -> None:
    answer = "The report could not be opened: summary.txt was not found."
    ai, _ = scripted([ScriptedTurn.calls(call("open_report", "c1")), ScriptedTurn(text=answer)])
    result = await run_agent("Summarize the report.", AgentConfig(), CONTEXT, deps(ai, [MISSING]))
    assert result.status == "completed" and result.final_text == answer and result.rounds == 2


async def test_the_round_context_states_the_users_language() -> None:
    ai, provider = scripted([ScriptedTurn(text="Anna Keller leitet es.")])
    await run_agent("Wer leitet das Projekt Seeblick?", AgentConfig(), CONTEXT, deps(ai, []))
    messages = provider.received[0].messages
    context = messages[-1]
    assert context.volatile and "The user writes in German" in context.content
    # The user's words stay their own message, untouched by agentur's context.
    assert messages[-2].content == "Wer leitet das Projekt Seeblick?"


async def test_a_run_asked_to_write_a_file_that_wrote_none_is_told_to_call_the_tool() -> None:
    WRITTEN.clear()
    ai, provider = scripted(
        [
            ScriptedTurn(text=PRINTED_INSTEAD),
            ScriptedTurn.calls(
                call("write_file", "c1", name="summary.txt", content="Meeting moved to Friday.")
            ),
            ScriptedTurn(text="I created summary.txt."),
        ]
    )
    result = await run_agent(CREATE_FILE, AgentConfig(), CONTEXT, deps(ai, [WRITE, MISSING]))
    assert result.status == "completed" and result.final_text == "I created summary.txt."
    assert WRITTEN == ["summary.txt"] and result.rounds == 3
    correction = [m for m in provider.received[1].messages if not m.volatile][-1]
    assert "no tool that changes anything has succeeded" in correction.content
    # the correction names the tools that write, not the read-only ones
    assert "write_file" in correction.content and "open_report" not in correction.content


async def test_a_run_that_still_writes_nothing_ends_with_agenturs_note() -> None:
    ai, _ = scripted([ScriptedTurn(text=PRINTED_INSTEAD), ScriptedTurn(text=PRINTED_INSTEAD)])
    result = await run_agent(CREATE_FILE, AgentConfig(), CONTEXT, deps(ai, [WRITE]))
    assert result.status == "completed" and result.rounds == 2
    assert result.final_text.startswith(PRINTED_INSTEAD) and result.final_text.endswith(CHANGE_NOTE)


@pytest.mark.parametrize(
    ("request_text", "answer"),
    [
        # a question, and a request for text in the reply: nothing to write
        ("Write a summary of notes.txt.", "Notes: the project starts in May."),
        ("How do I create a folder?", "Use the New folder button."),
        # the answer says why it could not
        (CREATE_FILE, "I cannot create summary.txt: the workspace is read-only for you."),
    ],
)
async def test_no_correction_when_no_change_was_asked_or_the_answer_says_why(
    request_text: str, answer: str
) -> None:
    ai, _ = scripted([ScriptedTurn(text=answer)])
    result = await run_agent(request_text, AgentConfig(), CONTEXT, deps(ai, [WRITE]))
    assert result.status == "completed" and result.final_text == answer and result.rounds == 1


async def test_an_answer_telling_the_user_to_call_a_tool_is_corrected() -> None:
    WRITTEN.clear()
    # Qwen2.5-Coder-1.5B's reply after it had created the folder but not copied the file
    advice = (
        "To create a file named summary.txt, please use the write_file function with the "
        'argument {"name": "summary.txt", "content": "Meeting moved to Friday."}.'
    )
    ai, provider = scripted(
        [
            ScriptedTurn(text=advice),
            ScriptedTurn(text=advice),
        ]
    )
    result = await run_agent(CREATE_FILE, AgentConfig(), CONTEXT, deps(ai, [WRITE]))
    assert result.status == "failed" and "only you can call" in (result.error or "")
    correction = [m for m in provider.received[1].messages if not m.volatile][-1]
    assert "write_file, a tool only you can call" in correction.content
    # naming a tool that is not offered is no advice to call it
    assert answer_problem("Use the search function of your browser.", "", {"write_file"}) is None


async def test_a_change_already_made_is_not_made_again() -> None:
    WRITTEN.clear()
    write = call("write_file", "c1", name="summary.txt", content="Meeting moved to Friday.")
    again = call("write_file", "c2", name="summary.txt", content="Meeting moved to Friday.")
    ai, provider = scripted(
        [ScriptedTurn.calls(write), ScriptedTurn.calls(again), ScriptedTurn(text="Done.")]
    )
    result = await run_agent(CREATE_FILE, AgentConfig(), CONTEXT, deps(ai, [WRITE]))
    assert result.status == "completed" and result.rounds == 3
    assert WRITTEN == ["summary.txt"]  # run once
    told = [m for m in provider.received[2].messages if m.role is Role.tool][-1]
    assert told.content.startswith("Not run again") and "summary.txt" in told.content


# Qwen2.5-Coder-1.5B, the same reply before and after the correction: the answer is there,
# between its plan (advice to use the tools) and round-memory lines it copied.
CLUTTERED = """To answer the question about the owner of the file `notes.txt`, I used the tools.

1. **Search**:
   - Use the `search_in_file_content` function to find "Mara Keller" in `notes.txt`.
2. **Read**:
   - Use the `read_file` function to read the content of `notes.txt`.

From the read content of `notes.txt`, Mara Keller is the owner of the project.
search_in_file_content (ok): {"matches": [{"file_id": "4a0c", "text": "Owner: Mara Keller"}]}
read_file (ok): {"file_id": "4a0c", "name": "notes.txt", "content": "Owner: Mara Keller"}"""
TOOLS = {"search_in_file_content", "read_file"}
FOUND = '{"file_id": "4a0c", "content": "Project Alpenblick\\nOwner: Mara Keller"}'


def test_an_answer_between_copied_context_is_salvaged() -> None:
    assert answer_problem(CLUTTERED, "Who owns notes.txt?", TOOLS) is not None
    salvaged = salvaged_answer(CLUTTERED, "Who owns notes.txt?", TOOLS, FOUND)
    assert salvaged is not None and "Mara Keller is the owner" in salvaged
    assert "(ok):" not in salvaged and "Use the" not in salvaged
    assert answer_problem(salvaged, "Who owns notes.txt?", TOOLS) is None
    # nothing left but junk: nothing to salvage
    assert salvaged_answer(FAKE_TOOL_RESPONSE, "Who owns notes.txt?", TOOLS, FOUND) is None
    # a fact no tool of the run returned (copied from memory): not taken
    echo = salvaged_answer(ROUND_MEMORY_ECHO, "Wie hoch ist das Budget?", TOOLS, '{"hits": []}')
    assert echo is None


async def test_a_run_that_made_its_change_ends_with_the_change_listed_when_its_words_fail() -> None:
    WRITTEN.clear()
    # Qwen2.5-Coder-1.5B, after write_file had succeeded, twice: the call it made, as advice
    narrated = (
        "To create a file named summary.txt, the user should call the `write_file` function "
        'with the following arguments: {"name": "summary.txt", "content": "Meeting moved."}'
    )
    written = ScriptedTurn.calls(
        call("write_file", "c1", name="summary.txt", content="Meeting moved to Friday.")
    )
    ai, _ = scripted([written, ScriptedTurn(text=narrated), ScriptedTurn(text=narrated)])
    result = await run_agent(CREATE_FILE, AgentConfig(), CONTEXT, deps(ai, [WRITE]))
    assert WRITTEN == ["summary.txt"]
    assert result.status == "completed" and "should call" not in result.final_text
    assert result.final_text == DONE_NOTE.format(
        problem="it tells the user to use write_file, a tool only you can call — call it yourself",
        done="write_file → summary.txt (round 1)",
    )


async def _notes(args: Nothing, context: ToolContext) -> dict:
    return {"name": "notes.txt", "content": "Budget: CHF 48,000\nOwner: Mara Keller"}


async def test_a_run_whose_corrected_answer_is_still_cluttered_ends_with_what_it_found() -> None:
    read = Tool("read_file", "Read a file.", Nothing, _notes, read_only=True)
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=CLUTTERED)]
    ai, _ = scripted([*turns, ScriptedTurn(text=CLUTTERED)])
    result = await run_agent("Who owns notes.txt?", AgentConfig(), CONTEXT, deps(ai, [read]))
    assert result.status == "completed" and "Mara Keller is the owner" in result.final_text
    assert "(ok):" not in result.final_text
    # the same reply without a tool result behind its facts: the run fails
    ai, _ = scripted([ScriptedTurn(text=CLUTTERED), ScriptedTurn(text=CLUTTERED)])
    result = await run_agent("Who owns notes.txt?", AgentConfig(), CONTEXT, deps(ai, [read]))
    assert result.status == "failed"


# Qwen2.5-Coder-1.5B asked in German, both replies: the first holds the answer between copies
# of the knowledge block; the second, after the correction, only the copies.
PASSAGE = "- [notes.txt (file_id c393)] Project Alpenblick kick-off\nBudget: CHF 48,000"
GERMAN_REQUEST = "Wer leitet das Projekt Alpenblick und wie hoch ist das Budget?"
GERMAN_FIRST = f"""### Relevant documents
{PASSAGE}
Owner: Mara Keller

[End of relevant documents.]

### Question
{GERMAN_REQUEST}

### Answer
- [notes.txt (file_id c393)] Das Projekt Alpenblick leitet Mara Keller.
- Das Budget für das Projekt Alpenblick beträgt CHF 48,000."""
ONLY_CONTEXT = f"### Relevant documents\n{PASSAGE}\n\n[End of relevant documents.]"


def test_the_knowledge_passages_ground_a_salvaged_answer_but_hints_do_not() -> None:
    knowledge = f"### Relevant documents\n{PASSAGE}\nOwner: Mara Keller"
    salvaged = salvaged_answer(GERMAN_FIRST, GERMAN_REQUEST, (), knowledge)
    assert salvaged is not None
    assert "Das Projekt Alpenblick leitet Mara Keller." in salvaged and "48,000" in salvaged
    assert "file_id" not in salvaged and "[End of" not in salvaged
    assert GERMAN_REQUEST not in salvaged  # the question's echo is dropped
    assert salvaged_answer(ONLY_CONTEXT, GERMAN_REQUEST, (), knowledge) is None
    hints = "### Hints from other workflows\n- workflow w1 (0.81): Mara Keller, CHF 48,000"
    assert "Mara" not in without_hints(hints) and without_hints(knowledge) == knowledge
    assert salvaged_answer(GERMAN_FIRST, GERMAN_REQUEST, (), without_hints(hints)) is None


async def test_when_the_corrected_reply_holds_nothing_the_first_one_is_salvaged() -> None:
    read = Tool("read_file", "Read a file.", Nothing, _notes, read_only=True)
    turns = [ScriptedTurn.calls(call("read_file", "c1")), ScriptedTurn(text=GERMAN_FIRST)]
    ai, _ = scripted([*turns, ScriptedTurn(text=ONLY_CONTEXT)])
    result = await run_agent(GERMAN_REQUEST, AgentConfig(), CONTEXT, deps(ai, [read]))
    assert result.status == "completed" and "leitet Mara Keller" in result.final_text


def test_a_change_names_what_its_result_names_or_only_its_tool() -> None:
    assert Change(1, "write_file", '{"file_id": "f9", "name": "a.txt"}').describe() == (
        "write_file → a.txt (round 1)"
    )
    # a result that is no JSON object, or names nothing, still says which tool ran when
    assert Change(2, "send_mail", "sent").describe() == "send_mail (round 2)"
    assert Change(3, "tag_file", '["x"]').describe() == "tag_file (round 3)"


def test_the_correction_phrases_are_in_the_corrections_themselves() -> None:
    corrections = [
        check.CORRECTION,
        check.FAILED_TOOLS_CORRECTION,
        check.CHANGE_CORRECTION,
        check.QUOTE_CORRECTION,
    ]
    for phrase in CORRECTION_PHRASES:
        assert any(phrase in text for text in corrections), phrase
    echoed = "The user's last reply is not an answer the user can be given: markup."
    assert answer_problem(echoed) == "it repeats agentur's correction instead of answering"


def test_a_correction_given_back_is_cut_from_a_salvaged_answer() -> None:
    reply = (
        "Your last reply is not an answer the user can be given: it is empty.\n"
        "The owner of notes.txt is Mara Keller."
    )
    found = "Project Alpenblick kick-off\nOwner: Mara Keller"
    kept = salvaged_answer(reply, "Who owns notes.txt?", (), found)
    assert kept == "The owner of notes.txt is Mara Keller."
