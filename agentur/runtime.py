"""The composition root: the process-wide parts (`RuntimeParts`) plus the wiring between the
parts that must not know each other — the agent and the knowledge store.

Only this module imports both; the agent owns its hook protocols (agentur/agent/hooks.py), the
knowledge store implements them structurally, and both receive `RuntimeParts`, never `Runtime`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentur.runtime_parts import RuntimeParts

if TYPE_CHECKING:
    from agentur.agent.dependencies import AgentDependencies
    from agentur.agent.settings import AgentSettings


@dataclass
class Runtime(RuntimeParts):
    def agent_dependencies(self, settings: AgentSettings | None = None) -> AgentDependencies:
        """The agent wired to this runtime: the gateway plus the knowledge store's RAG,
        round-memory and workflow-memory hooks."""
        # Imported here: commands that never run the agent (e.g. `agentur --help`) skip them.
        from agentur.agent.dependencies import AgentDependencies
        from agentur.agent.settings import AgentSettings
        from agentur.knowledge.hooks import (
            KnowledgeRag,
            KnowledgeRoundMemory,
            KnowledgeWorkflowMemory,
        )

        return AgentDependencies(
            ai=self.ai,
            runtime=self,
            settings=settings or AgentSettings(),
            rag=KnowledgeRag(self),
            round_memory=KnowledgeRoundMemory(self),
            workflow_memory=KnowledgeWorkflowMemory(self),
        )
