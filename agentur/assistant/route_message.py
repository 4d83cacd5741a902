"""The model-free router: keyword scores and (when an embedding model answers) similarity to
examples, merged per candidate; the best one above the threshold wins, else out of scope.
With similarity, a keyword hit only confirms the similarity's best candidate (`confirming`).
A match whose calibrated confidence also clears the (higher) direct threshold is `direct`:
sure enough to act on without asking a model.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from agentur.ai.providers.base import ProviderError
from agentur.assistant.definition import AssistantDefinition, Faq
from agentur.assistant.embedding_router import Embedder, similarity_scores
from agentur.assistant.keyword_router import Candidate, Scored, rank_by_keywords
from agentur.errors import AgenturError

logger = logging.getLogger(__name__)

PERSON_EXAMPLES = (
    "I want to talk to a person",
    "Can I speak to a human?",
    "connect me with a real person please",
    "Ich möchte mit einem Menschen sprechen",
    "Kann ich mit einem Mitarbeiter reden?",
    "Je voudrais parler à une personne",
    "Vorrei parlare con un operatore",
    "Quiero hablar con una persona",
)
PERSON_KEYWORDS = (
    "person",
    "human",
    "real person",
    "someone",
    "somebody",
    "staff",
    "representative",
    "mensch",
    "menschen",
    "mitarbeiter",
    "mitarbeiterin",
    "berater",
    "jemandem",
    "personne",
    "humain",
    "conseiller",
    "quelqu'un",
    "persona",
    "operatore",
    "umano",
    "qualcuno",
    "humano",
    "operador",
    "alguien",
)
GREETING_KEYWORDS = (
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank you",
    "hallo",
    "guten tag",
    "gruezi",
    "grüezi",
    "danke",
    "bonjour",
    "salut",
    "merci",
    "ciao",
    "buongiorno",
    "grazie",
    "hola",
    "gracias",
)


@dataclass(frozen=True, slots=True)
class RouteResult:
    kind: str  # "faq", "flow", "person", "greeting" or "out_of_scope"
    target: str | None
    score: float
    via: str
    direct: bool = False
    ranked: tuple[Scored, ...] = ()  # every candidate, best first


def candidates_of(definition: AssistantDefinition) -> list[Candidate]:
    found = [
        Candidate(
            "faq", faq.id, (faq.question, *faq.variants, *_translated(faq)), tuple(faq.keywords)
        )
        for faq in definition.faqs
    ]
    found += [
        Candidate("flow", flow.id, (flow.name, *flow.trigger_examples), tuple(flow.keywords))
        for flow in definition.flows
    ]
    found.append(Candidate("person", "", PERSON_EXAMPLES, PERSON_KEYWORDS))
    found.append(Candidate("greeting", "", (), GREETING_KEYWORDS))
    return found


def _translated(faq: Faq) -> list[str]:
    """A FAQ's questions in its other languages: examples like its variants."""
    return [item.question for item in faq.translations.values() if item.question]


def merge(*rankings: list[Scored]) -> list[Scored]:
    """Per candidate the best score any ranking gave it, best first."""
    best: dict[tuple[str, str], Scored] = {}
    for ranking in rankings:
        for item in ranking:
            key = _key(item)
            if key not in best or item.score > best[key].score:
                best[key] = item
    return sorted(best.values(), key=lambda item: item.score, reverse=True)


async def route_message(
    message: str,
    candidates: list[Candidate],
    *,
    embedder: Embedder | None,
    threshold: float,
    similarity_threshold: float,
    similarity_floor: float,
    out_of_scope_rate: float,
    direct_rate: float,
) -> RouteResult:
    """The similarity leg calibrates its out-of-scope threshold from the examples so that at
    most `out_of_scope_rate` of off-topic messages would be answered; `similarity_threshold`
    shifts it and `similarity_floor` is the lowest it may be (both in probability). Its
    direct threshold keeps to `direct_rate` (out of scope and misrouted)."""
    # With embeddings, word overlap only adds noise (bench/intent_routing.py); without them it
    # is the only signal beyond keywords.
    similarity: list[Scored] = []
    embeddable = [candidate for candidate in candidates if candidate.examples]
    if embedder is not None and embeddable:
        try:
            similarity = await similarity_scores(
                message,
                embeddable,
                embedder,
                shift=similarity_threshold,
                floor=similarity_floor,
                router_threshold=threshold,
                out_of_scope_rate=out_of_scope_rate,
                direct_rate=direct_rate,
            )
        except (AgenturError, ProviderError) as error:
            # No embedding model (or it failed): keywords and overlap decide.
            logger.info("router similarity unavailable: %s", error)
    keywords = rank_by_keywords(message, candidates, with_overlap=not similarity)
    routed = decide(merge(confirming(keywords, similarity), similarity), threshold)
    if routed.kind != "out_of_scope" and similarity and similarity[0].direct:
        best = similarity[0].candidate
        if (best.kind, best.target or None) == (routed.kind, routed.target):
            routed = replace(routed, direct=True)
    return routed


def confirming(keywords: list[Scored], similarity: list[Scored]) -> list[Scored]:
    """The keyword scores that may count beside the similarity leg: those of candidates it
    does not score (no examples, e.g. greetings) and of its best candidate. A keyword hit
    confirms the similarity's choice but no longer overrides it: on BANKING77 dev splits
    (`bench/intent_routing.py --dev`, first 10 per intent) overriding answered 0.238 of the
    out-of-scope messages at the calibrated point for 0.709 in-scope accuracy, confirming
    0.213 for 0.712 (similarity alone 0.195 for 0.707)."""
    if not similarity:
        return keywords
    scored = {_key(item) for item in similarity}
    best = _key(similarity[0])
    return [item for item in keywords if _key(item) not in scored or _key(item) == best]


def _key(item: Scored) -> tuple[str, str]:
    return (item.candidate.kind, item.candidate.target)


def decide(ranked: list[Scored], threshold: float) -> RouteResult:
    """The best candidate if it clears the threshold, else out of scope."""
    if not ranked or ranked[0].score < threshold:
        top = ranked[0] if ranked else None
        score, via = (top.score, top.via) if top else (0.0, "")
        return RouteResult("out_of_scope", None, score, via, ranked=tuple(ranked))
    top = ranked[0]
    return RouteResult(
        top.candidate.kind, top.candidate.target or None, top.score, top.via, ranked=tuple(ranked)
    )
