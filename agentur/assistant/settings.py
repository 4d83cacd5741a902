"""Settings of the assistant runtime: pre-flight mode, limits, SMTP, alerts, schedule.

The two pre-flight switches also answer to the spec's bare names `PREFLIGHT_SHADOW` and
`PREFLIGHT_ROUTING`, because operators know them by those names.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import AliasChoices, Field

from agentur.config import PartSettings, count, seconds
from agentur.egress.policy import AllowList, AllowListSetting, EgressPolicy
from agentur.wire_values import WireText


@dataclass(frozen=True, slots=True)
class ApiLimits:
    timeout_seconds: float
    max_response_bytes: int
    max_redirects: int
    # Off by default: every address that is not globally routable is refused.
    allow_private_targets: bool = False
    # `host`, `host:port` or CIDR entries exempt from that refusal (a trusted internal API).
    allowed: AllowList = AllowList()

    @property
    def egress(self) -> EgressPolicy:
        return EgressPolicy(
            timeout_seconds=self.timeout_seconds,
            max_bytes=self.max_response_bytes,
            max_redirects=self.max_redirects,
            allowed=self.allowed,
            allow_private=self.allow_private_targets,
        )


class AssistantSettings(PartSettings):
    preflight_shadow: bool = Field(
        default=False,
        validation_alias=AliasChoices("PREFLIGHT_SHADOW", "AGENTUR_PREFLIGHT_SHADOW"),
        description="Run the pre-flight and log its decisions without acting on them.",
    )
    preflight_routing: bool = Field(
        default=False,
        validation_alias=AliasChoices("PREFLIGHT_ROUTING", "AGENTUR_PREFLIGHT_ROUTING"),
        description="Run the pre-flight and act on decisions above their thresholds.",
    )
    assistant_router_threshold: float = Field(
        default=0.55,
        ge=0.0,
        le=1.0,
        description="Lowest router score (keywords + similarity) that picks a FAQ or flow; "
        "below it the message counts as out of scope (knowledge search).",
    )
    assistant_router_out_of_scope_rate: float = Field(
        # The router calibrates its out-of-scope threshold per assistant and embedding model
        # by cross-validation on the examples (agentur/assistant/intent_head.py) to this rate.
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Share of out-of-scope messages the router may still answer from a FAQ or "
        "flow, as estimated by cross-validation on the FAQ/flow examples and a shipped set of "
        "off-topic messages; its match threshold is the lowest that keeps to it. Lower sends "
        "more messages to knowledge search.",
    )
    assistant_router_direct_rate: float = Field(
        # Calibrated like the out-of-scope rate, on the same cross-validation messages.
        default=0.02,
        ge=0.0,
        le=1.0,
        description="Share of out-of-scope messages (and of messages meant for another FAQ "
        "or flow) the router may answer without asking the classification model; above the "
        "threshold that keeps to it, a FAQ is answered or a flow started with no model call. "
        "0 leaves every decision to the model when one is configured.",
    )
    assistant_similarity_threshold: float = Field(
        # Moves the operating point along the curve bench/intent_routing.py prints.
        default=0.0,
        ge=-1.0,
        le=1.0,
        description="Shift of the match-probability threshold the router calibrates from the "
        "FAQ/flow examples: positive sends more messages to knowledge search, negative "
        "answers more of them from FAQs and flows.",
    )
    assistant_similarity_floor: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Lowest match probability that can count as a FAQ/flow match, whatever "
        "the calibration picks.",
    )
    assistant_router_embedding_model: str = Field(
        default="local",
        description="Embedding model of the router's similarity leg: `provider:name`, or a "
        "provider name for its first embedding model (default: the on-device model). Pinned, "
        "so adding a cloud key does not change how visitor messages are routed.",
    )
    assistant_max_knowledge_steps: int = count(
        4, "Tool rounds of the knowledge loop before answering.", most=20
    )
    assistant_max_answer_tokens: int = Field(
        default=1024,
        ge=16,
        le=32_768,
        description="Output tokens of each model call of a knowledge answer (a small model "
        "may otherwise run on to its server's limit while the visitor waits).",
    )
    assistant_simplify_thinking_with_model: bool = Field(
        default=False,
        description="Rewrite tool progress for visitors through the gateway (one extra model "
        "call per tool call); off: fixed templates in the visitor's language.",
    )
    assistant_knowledge_passages: int = count(
        5,
        "Passages retrieved before a knowledge answer and put in its prompt "
        "(the model may search for more).",
        most=20,
    )
    assistant_extractive_passages: int = count(
        3, "Passages an extractive (model-free) answer quotes.", most=10
    )
    assistant_max_message_chars: int = count(4_000, "Longest visitor message accepted (422 above).")
    assistant_visitor_rate_per_minute: int = count(
        30, "Messages per minute one publishable key may send."
    )
    assistant_api_timeout_seconds: float = seconds(10.0, "Timeout of one API-catalog request.")
    assistant_api_max_response_bytes: int = count(
        1_000_000, "Largest API-catalog response read; larger fail."
    )
    assistant_api_window_chars: int = count(
        4_000, "Characters of an API response one window returns."
    )
    assistant_api_max_redirects: int = Field(
        default=3, ge=0, le=10, description="Same-host redirects an API call follows."
    )
    assistant_api_allow_private_targets: bool = Field(
        default=False,
        description="Let API catalogs call private, loopback, link-local and metadata "
        "addresses. Off: such base URLs (and redirects) are refused before any traffic.",
    )
    assistant_api_allowed_hosts: AllowListSetting = Field(
        default="",
        description="Comma-separated `host`, `host:port` or CIDR entries an API catalog may "
        "call although they are not global (a trusted internal API), besides those of "
        "`AGENTUR_EGRESS_ALLOWED_HOSTS`; narrower than allowing all.",
    )
    # Sent in SMTP commands: one line each (a start-up error otherwise).
    smtp_host: WireText | None = Field(
        default=None, description="SMTP server for e-mail escalation. Empty: e-mail is off."
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="SMTP port.")
    smtp_username: WireText | None = Field(default=None, description="SMTP login (optional).")
    smtp_password: WireText | None = Field(default=None, description="SMTP password (optional).")
    smtp_starttls: bool = Field(default=True, description="Upgrade the SMTP link with STARTTLS.")
    smtp_sender: WireText = Field(
        default="assistant@localhost", description="From address of escalation e-mails."
    )
    assistant_alert_webhook_url: str | None = Field(
        default=None, description="Replay alerts are POSTed here as JSON (optional)."
    )
    assistant_alert_email: str | None = Field(
        default=None, description="Replay alerts are e-mailed here via SMTP (optional)."
    )
    assistant_replay_time: str = Field(
        default="02:30", pattern=r"^\d{2}:\d{2}$", description="Nightly replay time (HH:MM)."
    )
    assistant_replay_timezone: str = Field(
        default="UTC", description="IANA time zone of `AGENTUR_ASSISTANT_REPLAY_TIME`."
    )

    def api_limits(self, egress_allowed: AllowList) -> ApiLimits:
        """The catalogs' limits; their egress exceptions are those of every outbound
        connection (`egress_allowed`) plus the catalogs' own."""
        return ApiLimits(
            self.assistant_api_timeout_seconds,
            self.assistant_api_max_response_bytes,
            self.assistant_api_max_redirects,
            self.assistant_api_allow_private_targets,
            egress_allowed | AllowList.parse(self.assistant_api_allowed_hosts),
        )

    @property
    def email_available(self) -> bool:
        """E-mail escalation is offered to visitors only with an SMTP server configured."""
        return bool(self.smtp_host)

    @property
    def preflight_mode(self) -> str:
        """`routing` wins over `shadow`: acting implies logging."""
        if self.preflight_routing:
            return "routing"
        if self.preflight_shadow:
            return "shadow"
        return "off"
