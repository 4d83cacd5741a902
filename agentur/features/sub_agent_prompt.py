"""The feature-data sub-agent's system prompt, in three layers: the instance's tables from
the declared schema, generic rules for reading business tables, optional domain hints."""

from __future__ import annotations

from agentur.features.instances import InstanceRef

RULES = (
    "## Rules\n"
    "- Answer only from tool results; you never write SQL. Use browse_table to see a table, "
    "query_table for rows, aggregate_table for SUM/COUNT/AVG/MIN/MAX with GROUP BY.\n"
    "- Never SUM or AVG columns of kind `balance` or `total`: they are already aggregated. "
    "Compute amounts from `movement` columns (e.g. debit/credit of journal entries).\n"
    "- A result with a `total` larger than its rows is a window; page on or aggregate instead "
    "of counting rows yourself.\n"
    "- In your answer, give the figure and state the table, the filters and the grouping you "
    "used, so the reader can check it."
)


def schema_block(instance: InstanceRef) -> str:
    lines = [
        f"You answer questions over the feature instance '{instance.name or instance.id}' "
        f"(feature {instance.feature.code}). Its tables:"
    ]
    for table in instance.feature.tables.values():
        lines.append(f"\n### {table.name} — {table.description}")
        for column in table.columns.values():
            kind = f", {column.kind}" if column.kind else ""
            lines.append(f"- {column.name} ({column.type}{kind}): {column.description}")
    return "\n".join(lines)


def sub_agent_prompt(instance: InstanceRef) -> str:
    parts = [schema_block(instance), RULES]
    hints = "\n".join(h for h in (instance.feature.domain_hints, instance.agent_hints.strip()) if h)
    if hints:
        parts.append("## Domain hints\n" + hints)
    return "\n\n".join(parts)
