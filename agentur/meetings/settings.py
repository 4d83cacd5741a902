"""Meeting assistant settings: flat names with the `meeting_` prefix (`AGENTUR_MEETING_*`)."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings, count, seconds


class MeetingSettings(PartSettings):
    meeting_wake_name: str = Field(
        default="agentur",
        min_length=1,
        max_length=80,
        description="The name the assistant answers to when a session sets none.",
    )
    meeting_window_utterances: int = count(30, "Recent utterances the fast path sees.", most=500)
    meeting_window_chars: int = Field(
        default=8_000, ge=200, description="Longest transcript window the fast path sees."
    )
    meeting_reply_max_output_tokens: int = Field(
        default=400, ge=32, description="Longest fast-path answer, in tokens."
    )
    meeting_knowledge_chars: int = Field(
        default=3_000,
        ge=0,
        description="Knowledge context handed to the fast path (0: none).",
    )
    meeting_max_utterances_per_batch: int = count(
        100, "Utterances one transcript request may carry.", most=10_000
    )
    meeting_max_utterance_chars: int = Field(
        default=4_000, ge=10, description="Longest single utterance."
    )
    meeting_max_directives: int = count(20, "Persistent directives a session may hold at once.")
    meeting_max_directive_chars: int = Field(
        default=2_000, ge=10, description="Longest directive text."
    )
    meeting_max_live_sessions: int = count(100, "Live sessions one worker holds at most.")
    meeting_event_buffer: int = count(
        200, "Events kept per listener; a listener that falls further behind is dropped."
    )
    meeting_default_budget_chf: float = Field(
        default=2.0, gt=0, description="Budget of a session that names none, in CHF."
    )
    meeting_agent_max_rounds: int = count(5, "Rounds of an escalated agent run.", most=100)
    meeting_agent_max_cost_chf: float = Field(
        default=0.10, gt=0, description="Budget of one escalated agent run, in CHF."
    )
    meeting_speech_format: str = Field(
        default="mp3",
        pattern="^(mp3|opus|aac|flac|wav)$",
        description="Audio format of spoken replies.",
    )
    meeting_summary_max_output_tokens: int = Field(
        default=800, ge=64, description="Longest end-of-meeting summary, in tokens."
    )
    meeting_end_wait_seconds: float = Field(
        default=60.0,
        ge=0,
        description="Ending a session waits this long for answers and agent runs under way; "
        "then they are cancelled.",
    )
    meeting_webhook_timeout_seconds: float = seconds(10.0, "Time limit of one chat-webhook post.")
