"""The assistant definition: what `POST /v1/assistants` accepts and what the runtime reads.

Pydantic models at the boundary; the whole definition is stored as one JSON document per
assistant, so a definition round-trips unchanged. Catalog credentials are the exception: they
are write-only here and stored encrypted beside the document (see `credentials_box`).
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from agentur.egress.parse_url import UrlRefusedError, parse_url
from agentur.json_numbers import JsonInt
from agentur.names import Name, OptionalName, name_rule
from agentur.wire_values import WireText

LANGUAGES = ("en", "de", "fr", "it", "es")
Language = Literal["en", "de", "fr", "it", "es"]
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
# A web origin as browsers send it in `Origin`: scheme, host, optional port (a trailing slash
# is tolerated). Not "null" (sent by any sandboxed frame or file: page, so listing it would
# open the key to every site), not "*", no path.
ORIGIN_PATTERN = r"^[hH][tT][tT][pP][sS]?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$"
MAX_NUMBER = 1e15  # bounds of a flow's number validation
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def short_id() -> str:
    return uuid.uuid4().hex[:12]


class Strict(BaseModel):
    # Unknown fields are errors: a typo in a definition must name the field, not vanish.
    # Numbers are finite (`1e999` parses as infinity, which JSON cannot even store).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# Numbers and booleans as JSON writes them: `false` is not 0, `"5"` is not 5.
Fraction = Annotated[StrictFloat, Field(ge=0, le=1)]
Bound = Annotated[StrictFloat, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]


Id = Annotated[str, Field(default_factory=short_id, pattern=r"^[A-Za-z0-9_-]{1,64}$")]


# An absolute http(s) address; whitespace spelled out (see ApiCatalog.base_url for why).
WEB_ADDRESS = r"^https?://[^/?#@ \t\r\n\f\v]+([/?#][^ \t\r\n\f\v]*)?$"


# A FAQ's question is what visitors pick it by: the name rule, with room for a sentence.
FaqQuestion = Annotated[str, *name_rule(max_length=1_000)]


class FaqTranslation(Strict):
    question: FaqQuestion | None = Field(
        default=None,
        description="The question in this language: the source's title, and one more example "
        "the router matches.",
    )
    answer: str = Field(min_length=1, max_length=20_000)


class Faq(Strict):
    id: Id
    question: FaqQuestion
    answer: str = Field(min_length=1, max_length=20_000)
    variants: list[str] = Field(default_factory=list, max_length=50)
    keywords: list[str] = Field(default_factory=list, max_length=50)
    url: str | None = Field(
        default=None,
        max_length=2_000,
        pattern=WEB_ADDRESS,
        description="A web page with more on this answer; visitors see it as the source link.",
    )
    language: Language | None = Field(
        default=None,
        description="The language of `question` and `answer`; empty: the assistant's first "
        "language.",
    )
    translations: dict[Language, FaqTranslation] = Field(
        default_factory=dict,
        description="The FAQ in other languages, by language code: a visitor gets the answer "
        "in the conversation's language, else the FAQ's own with a note saying so.",
    )

    def text_in(self, language: str, own_language: str) -> tuple[str, str, str]:
        """(question, answer, the language they are in): the visitor's language if the FAQ
        has it, else the FAQ's own (`own_language` when the FAQ names none)."""
        for code, translation in self.translations.items():
            if code == language:
                return translation.question or self.question, translation.answer, language
        return self.question, self.answer, self.language or own_language


class Validation(Strict):
    kind: Literal["text", "email", "number", "phone", "regex"] = "text"
    pattern: str | None = None
    min: Bound | None = None
    max: Bound | None = None
    max_length: JsonInt = Field(default=500, ge=1, le=10_000)

    @model_validator(mode="after")
    def _pattern_compiles(self) -> Validation:
        if self.kind == "regex":
            if not self.pattern:
                raise ValueError("a regex validation needs a pattern")
            try:
                re.compile(self.pattern)
            except re.error as error:
                raise ValueError(f"pattern does not compile: {error}") from error
        return self


class SayStep(Strict):
    kind: Literal["say"]
    id: Id
    text: str = Field(min_length=1)


class AskStep(Strict):
    kind: Literal["ask"]
    id: Id
    prompt: str = Field(min_length=1)
    variable: str = Field(pattern=r"^[a-z_][a-z0-9_]{0,63}$")
    validation: Validation = Field(default_factory=Validation)
    error_message: str = "That does not look right. Please try again."


class ChoiceOption(Strict):
    label: Name
    value: str = Field(min_length=1)
    next_step: str | None = None  # a step id; None continues with the next step


class ChoiceStep(Strict):
    kind: Literal["choice"]
    id: Id
    prompt: str = Field(min_length=1)
    variable: str = Field(pattern=r"^[a-z_][a-z0-9_]{0,63}$")
    options: list[ChoiceOption] = Field(min_length=1, max_length=20)


class CallApiStep(Strict):
    kind: Literal["call_api"]
    id: Id
    endpoint: str
    # Values are templates over the flow's variables, e.g. {"order_id": "{order}"}.
    path_params: dict[str, str] = Field(default_factory=dict)
    query: dict[str, str] = Field(default_factory=dict)
    body: dict[str, Any] | None = None
    result_variable: str = Field(default="result", pattern=r"^[a-z_][a-z0-9_]{0,63}$")
    # Dotted path into the JSON response copied into the variable (None: the whole text).
    result_path: str | None = None
    error_message: str = "The service is not reachable right now."


class HandoffStep(Strict):
    kind: Literal["handoff"]
    id: Id
    help_desk: str  # a help desk id or name


FlowStep = Annotated[
    SayStep | AskStep | ChoiceStep | CallApiStep | HandoffStep, Field(discriminator="kind")
]


class Flow(Strict):
    id: Id
    name: Name
    trigger_examples: list[str] = Field(default_factory=list, max_length=50)
    keywords: list[str] = Field(default_factory=list, max_length=50)
    steps: list[FlowStep] = Field(min_length=1, max_length=100)

    @model_validator(mode="after")
    def _targets_exist(self) -> Flow:
        ids = [step.id for step in self.steps]
        if len(set(ids)) != len(ids):
            raise ValueError("step ids must be unique within a flow")
        for step in self.steps:
            if isinstance(step, ChoiceStep):
                for option in step.options:
                    if option.next_step and option.next_step not in ids:
                        raise ValueError(f"choice option names unknown step {option.next_step!r}")
        return self


OPENING_RANGE = r"^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$"
# Checked with a specific message below; the schema states the same pattern.
OpeningRange = Annotated[str, WithJsonSchema({"type": "string", "pattern": OPENING_RANGE})]


class OpeningHours(Strict):
    timezone: str = "UTC"
    # {"mon": ["08:00-12:00", "13:00-17:00"], …}; a missing day is closed.
    days: dict[Weekday, Annotated[list[OpeningRange], Field(max_length=10)]] = Field(
        default_factory=dict
    )

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except Exception as error:
            raise ValueError(f"unknown time zone {value!r}") from error
        return value

    @field_validator("days")
    @classmethod
    def _ranges(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for ranges in value.values():
            for item in ranges:
                if not re.fullmatch(OPENING_RANGE, item):
                    raise ValueError(f"opening range {item!r} is not HH:MM-HH:MM")
        return value


class EscalationOption(Strict):
    kind: Literal["email", "phone", "chat"]
    label: OptionalName = ""
    address: str = Field(
        min_length=1,
        description="E-mail address, phone number, or for a chat the web address of the live "
        "chat (agentur has no live chat of its own: a chat without an http(s) address is not "
        "offered to visitors)",
    )
    # Options without hours are always available (e.g. e-mail).
    hours: OpeningHours | None = None


class HelpDesk(Strict):
    id: Id
    name: Name
    description: str = ""
    options: list[EscalationOption] = Field(min_length=1, max_length=10)


class ApiEndpoint(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    path: str = Field(pattern=r"^/[A-Za-z0-9_.~/{}-]*$", max_length=500)
    description: str = ""
    # Per path parameter a regex its value must match in full (default: a safe token).
    path_params: dict[str, str] = Field(default_factory=dict)
    query_params: list[str] = Field(default_factory=list, max_length=50)
    body_schema: dict[str, Any] | None = None

    @field_validator("path")
    @classmethod
    def _no_traversal(cls, value: str) -> str:
        if "//" in value or any(part in (".", "..") for part in value.split("/")):
            raise ValueError("path template must not contain '//', '.' or '..' segments")
        return value


# An HTTP field name (RFC 9110 token), also fine as a query parameter name.
HEADER_NAME = r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$"


class ApiCredential(Strict):
    kind: Literal["bearer", "header", "query"] = "bearer"
    name: str = Field(default="Authorization", pattern=HEADER_NAME)  # header or query name
    # Sent as a header value or query value: one line (`WireText`), bounded.
    value: WireText = Field(min_length=1, max_length=4096)


class ApiCatalog(Strict):
    # Whitespace spelled out: `\s` means more characters (e.g. U+0085) in pydantic's regex
    # engine than in the one that reads the OpenAPI document; the host is checked in full by
    # the egress parser below.
    base_url: str = Field(pattern=r"^https?://[^/?#@ \t\r\n\f\v]+(/[^?#@ \t\r\n\f\v]*)?$")
    endpoints: list[ApiEndpoint] = Field(default_factory=list, max_length=100)
    # Write-only: accepted here, encrypted at rest, never returned or shown to a model.
    credential: ApiCredential | None = None

    @field_validator("base_url")
    @classmethod
    def _strict_url(cls, value: str) -> str:
        # The egress part's own parser: a host spelled `0177.0.0.1` or `2130706433` is refused
        # here (422), not found out at call time. Whether the address may be reached is
        # checked at call time, against the deployment's allow-list and the DNS answer then.
        try:
            parse_url(value)
        except UrlRefusedError as error:
            raise ValueError(error.detail) from error
        return value

    @model_validator(mode="after")
    def _unique(self) -> ApiCatalog:
        names = [endpoint.name for endpoint in self.endpoints]
        if len(set(names)) != len(names):
            raise ValueError("endpoint names must be unique")
        return self


class PreflightThresholds(Strict):
    flow: Fraction = 0.8
    faq: Fraction = 0.8
    person_request: Fraction = 0.8
    help_desk: Fraction = 0.6
    reasoning_level: Fraction = 0.5
    frustration_level: Fraction = 0.5
    language: Fraction = 0.6


MAX_KNOWLEDGE_IDS = 1_000


class KnowledgeScope(Strict):
    folder_ids: list[str] = Field(default_factory=list, max_length=MAX_KNOWLEDGE_IDS)
    file_ids: list[str] = Field(default_factory=list, max_length=MAX_KNOWLEDGE_IDS)
    scopes: list[Literal["personal", "feature_instance", "mandate", "global"]] = Field(
        default_factory=lambda: ["mandate", "global"], max_length=4
    )


class AssistantDefinition(Strict):
    name: Name
    instructions: str = Field(default="", max_length=20_000)
    languages: list[Language] = Field(
        default_factory=lambda: ["en"], min_length=1, max_length=len(LANGUAGES)
    )
    knowledge: KnowledgeScope = Field(default_factory=KnowledgeScope)
    faqs: list[Faq] = Field(default_factory=list, max_length=1_000)
    flows: list[Flow] = Field(default_factory=list, max_length=200)
    help_desks: list[HelpDesk] = Field(default_factory=list, max_length=50)
    api_catalog: ApiCatalog | None = None
    preflight_thresholds: PreflightThresholds = Field(default_factory=PreflightThresholds)
    allowed_origins: list[
        Annotated[str, Field(max_length=300, json_schema_extra={"pattern": ORIGIN_PATTERN})]
    ] = Field(
        default_factory=list,
        max_length=100,
        description="CORS for visitors: web origins such as https://shop.example",
    )

    @field_validator("allowed_origins")
    @classmethod
    def _web_origins(cls, origins: list[str]) -> list[str]:
        for origin in origins:
            if not re.fullmatch(ORIGIN_PATTERN, origin):  # fullmatch: no "\n" after `$`
                raise ValueError(
                    f"{origin!r} is not a web origin: write scheme, host and port only, "
                    "e.g. https://shop.example ('null' and '*' would admit every site)"
                )
        return origins

    @model_validator(mode="after")
    def _references(self) -> AssistantDefinition:
        for group, items in (
            ("faqs", self.faqs),
            ("flows", self.flows),
            ("help_desks", self.help_desks),
        ):
            ids = [item.id for item in items]
            if len(set(ids)) != len(ids):
                raise ValueError(f"{group}: ids must be unique")
        for faq in self.faqs:
            own = faq.language or self.languages[0]
            if own in faq.translations:
                raise ValueError(
                    f"FAQ {faq.question!r}: a translation into {own!r}, its own language "
                    "(question and answer are in it); edit the answer or set `language`"
                )
        desks = {desk.id for desk in self.help_desks} | {desk.name for desk in self.help_desks}
        endpoints = {e.name for e in self.api_catalog.endpoints} if self.api_catalog else set()
        for flow in self.flows:
            for step in flow.steps:
                if isinstance(step, HandoffStep) and step.help_desk not in desks:
                    raise ValueError(f"flow {flow.name!r}: unknown help desk {step.help_desk!r}")
                if isinstance(step, CallApiStep) and step.endpoint not in endpoints:
                    raise ValueError(f"flow {flow.name!r}: unknown API endpoint {step.endpoint!r}")
        return self

    def faq(self, faq_id: str) -> Faq | None:
        return next((faq for faq in self.faqs if faq.id == faq_id), None)

    def flow(self, key: str) -> Flow | None:
        return next((flow for flow in self.flows if key in (flow.id, flow.name)), None)

    def help_desk(self, key: str | None) -> HelpDesk | None:
        if key is None:
            return self.help_desks[0] if self.help_desks else None
        return next((desk for desk in self.help_desks if key in (desk.id, desk.name)), None)
