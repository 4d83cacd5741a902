"""The typed action catalog: generated tools match their functions' signatures, every
action tool's schema matches the committed snapshot (the drift test: it fails on any change
until the snapshot is regenerated on purpose), tools are flagged as action tools, and they
change data when a scripted model runs them."""

from __future__ import annotations

import inspect
from typing import Annotated, get_type_hints

import pytest
from pydantic import Field, ValidationError

from agentur.accounts import directory
from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.features.query_tables import AggregateArguments, Filter, QueryArguments
from agentur.tools import trustee_actions, workflow_actions
from agentur.tools.action_catalog import Action, action_tool
from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import ToolContext
from agentur.workflows.service import WorkflowService
from tests.agent.support import Recorder, call, deps, scripted
from tests.features.support import trustee_instance
from tests.tools import action_schemas

CATALOG = [*trustee_actions.ACTIONS, *workflow_actions.ACTIONS]


def test_catalog_and_generated_tools_agree() -> None:
    registry = ToolRegistry.discover()
    # Connection tools (send_mail, jira_add_comment, …) are action tools written by hand; every
    # action tool of a catalog method (trustee_*, workflow_*) must come from the catalog.
    methods = {action.name.split("_", 1)[0] for action in CATALOG}
    action_tools = {
        tool.name: tool
        for tool in registry.all()
        if tool.is_action and tool.name.split("_", 1)[0] in methods
    }
    assert set(action_tools) == {action.name for action in CATALOG}
    assert set(action_tools) == {
        "trustee_create_invoice",
        "trustee_book_journal_entry",
        "trustee_mark_invoice_paid",
        "workflow_rename",
        "workflow_archive",
        "workflow_post_message",
    }
    for action in CATALOG:
        assert action_tools[action.name].is_action and not action_tools[action.name].read_only


def test_action_tool_schemas_match_the_committed_snapshot() -> None:
    found = action_schemas.differences(
        action_schemas.schemas(action_schemas.action_tools()), action_schemas.saved()
    )
    assert not found, (
        "action tool schemas differ from tests/tools/action_tool_schemas.json — models are "
        f"offered something new. Review, then regenerate with `{action_schemas.REGENERATE}`:\n"
        + "\n".join(found)
    )


def _with_a_new_parameter(action: Action) -> Action:
    """The action as if its function had gained `discount_percent: int = 0`."""

    async def changed(context: ToolContext, **values: object) -> object:
        return await action.function(context, **values)

    signature = inspect.signature(action.function)
    extra = inspect.Parameter(
        "discount_percent", inspect.Parameter.KEYWORD_ONLY, default=0, annotation=int
    )
    changed.__name__ = action.function.__name__
    changed.__doc__ = action.function.__doc__
    changed.__signature__ = signature.replace(parameters=[*signature.parameters.values(), extra])  # type: ignore[attr-defined]
    changed.__annotations__ = {
        **get_type_hints(action.function, include_extras=True),
        "discount_percent": int,
    }
    return Action(action.method, changed, action.toolbox)


def test_a_changed_signature_fails_the_snapshot_comparison() -> None:
    invoice = next(a for a in CATALOG if a.name == "trustee_create_invoice")
    tools = [
        action_tool(_with_a_new_parameter(invoice)) if tool.name == invoice.name else tool
        for tool in action_schemas.action_tools()
    ]
    found = action_schemas.differences(action_schemas.schemas(tools), action_schemas.saved())
    assert found == ["trustee_create_invoice: parameter 'discount_percent' is new"]
    # … and a removed tool, a narrower limit or a new description are differences too.
    current = action_schemas.schemas(action_schemas.action_tools())
    del current["workflow_archive"]
    current["workflow_rename"]["description"] += " Really."
    current["send_mail"]["arguments"]["properties"]["subject"]["maxLength"] = 10
    assert action_schemas.differences(current, action_schemas.saved()) == [
        "send_mail: parameter 'subject' changed type, limits or description",
        "workflow_archive: in the snapshot, but no action tool any more",
        "workflow_rename: description changed",
    ]


async def _note(context: ToolContext, *, text: Annotated[str, Field(max_length=10)]) -> dict:
    """Write a note."""
    return {"text": text}


async def _note_with_tag(
    context: ToolContext, *, text: Annotated[str, Field(max_length=10)], tag: str
) -> dict:
    """Write a note."""
    return {"text": text, "tag": tag}


async def _note_longer(context: ToolContext, *, text: Annotated[str, Field(max_length=99)]) -> dict:
    """Write a note."""
    return {"text": text}


def test_drift_is_found_both_ways() -> None:
    def offered(function: object) -> dict:
        return action_schemas.schemas([action_tool(Action("demo", function, "core"))]).popitem()[1]  # type: ignore[arg-type]

    note, tagged, longer = offered(_note), offered(_note_with_tag), offered(_note_longer)
    assert action_schemas.differences({"demo": tagged}, {"demo": note}) == [
        "demo: parameter 'tag' is new",
        "demo: required parameters changed",
    ]
    assert action_schemas.differences({"demo": note}, {"demo": tagged}) == [
        "demo: parameter 'tag' is gone",
        "demo: required parameters changed",
    ]
    assert action_schemas.differences({"demo": longer}, {"demo": note}) == [
        "demo: parameter 'text' changed type, limits or description"
    ]


def test_generated_tool_validates_and_describes_from_the_signature() -> None:
    tool = action_tool(Action("demo", _note, toolbox="core"))
    assert tool.name == "demo__note" and tool.description == "Write a note."
    assert tool.is_action and not tool.read_only
    with pytest.raises(ValidationError):
        tool.arguments.model_validate({"text": "x" * 11})
    with pytest.raises(ValidationError):
        tool.arguments.model_validate({"text": "x", "other": 1})


async def test_trustee_actions_change_the_books_and_are_traced(client, runtime, tenants) -> None:
    member = await tenants.member("acme")
    instance_id = await trustee_instance(runtime, member.context)
    count_open = AggregateArguments(
        table="invoices", function="COUNT", filters=[Filter(column="status", value="open")]
    )
    before = await runtime.feature_data.aggregate(member.context, instance_id, count_open)
    assert before["groups"] == [{"value": 1}]
    ai, _ = scripted(
        [
            ScriptedTurn.calls(
                call(
                    "trustee_create_invoice",
                    "a1",
                    instance_id=instance_id,
                    number="R4",
                    customer_number="C2",
                    issue_date="2026-03-01",
                    due_date="2026-03-31",
                    amount="250.50",
                ),
                call(
                    "trustee_mark_invoice_paid",
                    "a2",
                    instance_id=instance_id,
                    number="R3",
                    paid_date="2026-03-02",
                ),
                call(
                    "trustee_book_journal_entry",
                    "a3",
                    instance_id=instance_id,
                    entry_date="2026-03-02",
                    debit_account="1020",
                    credit_account="3200",
                    amount="800.00",
                    description="Invoice R3 paid",
                ),
                call(
                    "trustee_mark_invoice_paid",
                    "a4",
                    instance_id=instance_id,
                    number="R3",
                    paid_date="2026-03-03",
                ),
            ),
            ScriptedTurn(text="booked"),
        ]
    )
    recorder = Recorder()
    result = await run_agent(
        "book it",
        AgentConfig(initial_toolboxes=["trustee"]),
        member.context,
        deps(ai, runtime=runtime),
        emit=recorder,
    )
    assert result.status == "completed"
    outcomes = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert not any(outcomes[i]["is_error"] for i in ("a1", "a2", "a3"))
    assert outcomes["a4"]["is_error"] and "was paid on 2026-03-02" in outcomes["a4"]["content"]

    after = await runtime.feature_data.aggregate(member.context, instance_id, count_open)
    assert after["groups"] == [{"value": 1}]  # R3 paid, R4 new — not the cached count
    r4 = await runtime.feature_data.query(
        member.context,
        instance_id,
        QueryArguments(table="invoices", filters=[Filter(column="number", value="R4")]),
    )
    assert r4["rows"][0]["amount"] == "250.50" and r4["rows"][0]["status"] == "open"
    march = await runtime.feature_data.aggregate(
        member.context,
        instance_id,
        AggregateArguments(
            table="journal_entries",
            function="SUM",
            column="credit",
            filters=[Filter(column="period", value="2026-03")],
            group_by=["account_number"],
        ),
    )
    assert march["groups"] == [
        {"account_number": "1020", "value": "0.00"},
        {"account_number": "3200", "value": "800.00"},
    ]

    trace = (await client.get(f"/v1/agent/runs/{result.run_id}", headers=member.headers)).json()
    calls = [e["data"] for e in trace["entries"] if e["kind"] == "tool_call"]
    assert [c["name"] for c in calls] == [
        "trustee_create_invoice",
        "trustee_mark_invoice_paid",
        "trustee_book_journal_entry",
        "trustee_mark_invoice_paid",
    ]
    assert calls[0]["arguments"]["number"] == "R4" and not calls[0]["is_error"]


async def test_action_tools_are_left_out_on_request(runtime, tenants) -> None:
    member = await tenants.member("acme")
    await trustee_instance(runtime, member.context, filled=False)
    names = []
    for exclude in (False, True):
        ai, provider = scripted([ScriptedTurn(text="ok")])
        config = AgentConfig(initial_toolboxes=["trustee"], exclude_action_tools=exclude)
        await run_agent("?", config, member.context, deps(ai, runtime=runtime))
        names.append({t.name for t in provider.received[0].tools})
    assert "trustee_create_invoice" in names[0] and "query_feature_instance" in names[0]
    assert "trustee_create_invoice" not in names[1] and "query_feature_instance" in names[1]


async def test_workflow_actions_rename_post_and_archive(runtime, tenants) -> None:
    member = await tenants.member("acme")
    async with runtime.database.transaction() as session:
        await directory.create_feature_instance(
            session, mandate_id=member.mandate_id, feature_code="graphicalEditor"
        )
    ai, _ = scripted(
        [
            ScriptedTurn.call("workflow_rename", "w1", title="Quarter close"),
            ScriptedTurn.call("workflow_post_message", "w2", text="Checklist sent."),
            ScriptedTurn.call("workflow_archive", "w3"),
            ScriptedTurn(text="done"),
        ]
    )
    result = await run_agent(
        "tidy up",
        AgentConfig(initial_toolboxes=["workflow"]),
        member.context,
        deps(ai, runtime=runtime),
    )
    assert result.status == "completed"
    async with runtime.database.session() as session:
        workflows = WorkflowService(session, member.context)
        workflow = await workflows.get(result.workflow_id)
        assert workflow.title == "Quarter close" and workflow.archived_at is not None
        messages, _ = await workflows.messages(workflow.id)
        assert "Checklist sent." in [m.content for m in messages]
        assert workflow.id not in [w.id for w in await workflows.list()]
