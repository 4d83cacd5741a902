"""The settings root: every part's settings, read from the environment (and `agentur.toml`) once
when the process starts, and handed down from here.

This is the one module that constructs the parts' settings classes; a part receives its settings
(a constructor argument, the runtime, the tools' run context) and never builds its own or
another part's (a test scans the package for it). A part's settings module is a plain
declaration that imports only lower layers, so every part can be named here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Self

from agentur.agent.settings import AgentSettings
from agentur.ai.model_catalog import VENDORS
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.providers.vendor import VendorSettings
from agentur.ai.settings import AiSettings
from agentur.api.backpressure.settings import BackpressureSettings
from agentur.api.mcp.settings import McpServerSettings
from agentur.api.openai_compatible.settings import OpenAICompatibleSettings
from agentur.assistant.settings import AssistantSettings
from agentur.config import Settings
from agentur.connections.settings import ConnectionSettings
from agentur.egress.settings import EgressSettings
from agentur.features.settings import FeatureSettings
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.settings import KnowledgeSettings
from agentur.meetings.settings import MeetingSettings
from agentur.rendering.settings import ChartSettings
from agentur.sandbox.settings import SandboxSettings


def vendor_settings() -> dict[str, VendorSettings]:
    return {vendor.name: vendor.settings() for vendor in VENDORS}


@dataclass(frozen=True, slots=True)
class AllSettings:
    """One instance per process (tests build their own): the core settings plus each part's."""

    core: Settings = field(default_factory=Settings)
    ai: AiSettings = field(default_factory=AiSettings)
    # Each hosted vendor's (declared in its adapter module), by vendor name.
    vendors: dict[str, VendorSettings] = field(default_factory=vendor_settings)
    # The OpenAI-compatible server the gateway may use as a provider (declared beside its
    # adapter); not `openai`, the settings of agentur's own OpenAI-compatible API.
    openai_compatible_server: OpenAICompatibleServerSettings = field(
        default_factory=OpenAICompatibleServerSettings
    )
    agent: AgentSettings = field(default_factory=AgentSettings)
    knowledge: KnowledgeSettings = field(default_factory=KnowledgeSettings)
    ocr: OcrSettings = field(default_factory=OcrSettings)
    connections: ConnectionSettings = field(default_factory=ConnectionSettings)
    egress: EgressSettings = field(default_factory=EgressSettings)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    charts: ChartSettings = field(default_factory=ChartSettings)
    features: FeatureSettings = field(default_factory=FeatureSettings)
    assistant: AssistantSettings = field(default_factory=AssistantSettings)
    meetings: MeetingSettings = field(default_factory=MeetingSettings)
    openai: OpenAICompatibleSettings = field(default_factory=OpenAICompatibleSettings)
    backpressure: BackpressureSettings = field(default_factory=BackpressureSettings)
    mcp: McpServerSettings = field(default_factory=McpServerSettings)

    @classmethod
    def from_environment(cls, core: Settings | None = None, **parts: Any) -> Self:
        """Every part's settings from the environment, except those given (`core`, and parts
        by field name, e.g. `ai=AiSettings(...)`)."""
        return cls(core=core or Settings(), **parts)

    def with_parts(self, **parts: Any) -> Self:
        """A copy with some parts' settings replaced (tests, benches)."""
        return replace(self, **parts)
