"""The composition root: the process-wide parts (`RuntimeParts`) plus the wiring between the
parts that must not know each other — the agent and the tools on one side, the knowledge store
on the other.

Only this module imports both; the agent owns its hook protocols (agentur/agent/hooks.py) and
the workspace the tools' document-text port (agentur/workspace/document_text.py), the knowledge
store implements them structurally, and all receive `RuntimeParts`, never `Runtime`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agentur.runtime_parts import RuntimeParts

if TYPE_CHECKING:
    from agentur.agent.dependencies import AgentDependencies
    from agentur.agent.run_heartbeat import RunHeartbeat
    from agentur.agent.settings import AgentSettings


@dataclass
class Runtime(RuntimeParts):
    # One heartbeat for every run this process executes (one UPDATE per interval for all).
    _run_heartbeat: RunHeartbeat | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        from agentur.knowledge.document_texts import KnowledgeDocumentTexts

        if self.documents is None:
            self.documents = KnowledgeDocumentTexts(self)

    def run_heartbeat(self, settings: AgentSettings) -> RunHeartbeat:
        """This process's heartbeat (its interval from the first settings that ask)."""
        from agentur.agent.run_heartbeat import RunHeartbeat

        if self._run_heartbeat is None:
            self._run_heartbeat = RunHeartbeat(self.database, settings.agent_heartbeat_seconds)
        return self._run_heartbeat

    def agent_dependencies(self, settings: AgentSettings | None = None) -> AgentDependencies:
        """The agent wired to this runtime: the gateway plus the knowledge store's RAG,
        round-memory and workflow-memory hooks."""
        # Imported here: commands that never run the agent (e.g. `agentur --help`) skip them.
        from agentur.agent.dependencies import AgentDependencies
        from agentur.knowledge.hooks import (
            KnowledgeRag,
            KnowledgeRoundMemory,
            KnowledgeWorkflowMemory,
        )

        settings = settings or self.all_settings.agent
        return AgentDependencies(
            ai=self.ai,
            runtime=self,
            settings=settings,
            heartbeat=self.run_heartbeat(settings),
            rag=KnowledgeRag(self),
            round_memory=KnowledgeRoundMemory(self),
            workflow_memory=KnowledgeWorkflowMemory(self),
        )
