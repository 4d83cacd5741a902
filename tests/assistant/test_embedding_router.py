"""The similarity leg of the router: classifier heads over example embeddings and character
n-grams whose out-of-scope threshold is calibrated from the examples alone, mapped onto the
router threshold, with the embedding model pinned."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.local_embedding import LocalEmbeddingProvider
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.assistant.embedding_router import GatewayEmbedder, router_scores
from agentur.assistant.intent_head import Calibrated, fit, threshold_for, train, train_mixed
from agentur.assistant.keyword_router import Candidate, Scored
from agentur.assistant.lexical_head import train_lexical
from agentur.assistant.match_confidence import SIGNALS, train_confidence
from agentur.assistant.route_message import confirming, decide, merge, route_message
from agentur.assistant.text_tokens import words
from tests.assistant.turns import CONTEXT

ROUTER = 0.55


def clusters(centres: np.ndarray, per: int, spread: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = np.repeat(centres, per, axis=0) + rng.normal(0, spread, (len(centres) * per, 8))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


CENTRES = np.eye(8)[:4]


def test_head_separates_the_classes_it_was_trained_on() -> None:
    vectors = clusters(CENTRES, 5, 0.1, 1)
    labels = np.repeat(np.arange(4), 5)
    head = train(vectors, labels, 4)
    fresh = clusters(CENTRES, 3, 0.1, 2)
    assert np.array_equal(head.probabilities(fresh).argmax(axis=1), np.repeat(np.arange(4), 3))


def test_calibrated_threshold_sits_between_in_scope_and_unseen_classes() -> None:
    centres = np.eye(8)
    labels = np.repeat(np.arange(8), 6)
    texts = ["same words everywhere"] * len(labels)  # the lexical head cannot tell them apart
    fitted = fit(clusters(centres, 6, 0.1, 3), texts, labels, 8, None, 0.2, 0.02)
    assert 0.0 < fitted.threshold < 1.0
    fresh = clusters(centres, 4, 0.1, 4)
    sure = fitted.probabilities(fresh, texts[: len(fresh)]).max(axis=1)
    assert (sure >= fitted.threshold).mean() >= 0.75  # new messages of known classes answered
    # A message between every class is unsure: below the threshold.
    between = fitted.probabilities(np.full((1, 8), 8**-0.5), texts[:1]).max()
    assert between < fitted.threshold
    stricter = fit(clusters(centres, 6, 0.1, 3), texts, labels, 8, None, 0.05, 0.02)
    assert stricter.threshold > fitted.threshold


def test_learnt_confidence_follows_the_signal_that_separates_right_from_wrong() -> None:
    rng = np.random.default_rng(7)
    values = rng.uniform(0, 1, (200, SIGNALS))
    right = values[:, 4] > 0.6  # only the nearest-example cosine tells them apart
    confidence = train_confidence(values, right)
    assert confidence is not None
    near, far = values.copy(), values.copy()
    near[:, 4], far[:, 4] = 0.9, 0.3
    assert (confidence.score(near) > confidence.score(far)).all()
    assert train_confidence(values, np.ones(200, dtype=bool)) is None  # nothing to learn


def test_confidence_rescaling_keeps_each_messages_ranking_and_background_win() -> None:
    centres = np.eye(8)[:5]
    labels = np.repeat(np.arange(5), 6)  # class 4 plays the background
    texts = ["same words everywhere"] * len(labels)
    fitted = fit(clusters(centres, 6, 0.15, 8), texts, labels, 5, 4, 0.2, 0.02)
    assert fitted.confidence is not None
    messages = clusters(centres, 3, 0.15, 9)
    plain = fitted.head.answer(messages, texts[: len(messages)]).mixed
    scaled = fitted.probabilities(messages, texts[: len(messages)])
    assert np.array_equal(np.argsort(plain, axis=1), np.argsort(scaled, axis=1))
    assert (scaled.max(axis=1) <= 1.0).all()


def test_threshold_answers_at_most_the_allowed_share_of_out_of_scope_messages() -> None:
    outside = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
    for rate, answered in ((0.0, 0), (0.2, 2), (0.25, 2), (0.5, 5)):
        threshold = threshold_for(outside, rate)
        assert sum(value >= threshold for value in outside) == answered
    assert threshold_for(outside, 1.0) == 0.0
    assert threshold_for([0.4, 0.4, 0.4], 0.5) > 0.4  # ties: all answered or none


def test_lexical_head_recognises_forms_no_example_contains() -> None:
    classes = {
        "refund": ["Wie bekomme ich eine Rückerstattung?", "Je veux être remboursé"],
        "opening": ["Wann habt ihr geöffnet?", "Öffnungszeiten am Samstag"],
        "delivery": ["Wie lange dauert die Lieferung?", "Quand arrive mon colis ?"],
    }
    texts = [text for examples in classes.values() for text in examples]
    labels = np.repeat(np.arange(3), 2)
    head = train_lexical(texts, labels, 3)
    # Inflections, a compound and a missing umlaut: no whole word is shared with the examples.
    messages = ["rückerstatten bitte", "remboursement", "offnungszeit", "samstags", "Lieferungen"]
    seen = {word for text in texts for word in words(text)}
    assert not [m for m in messages if set(words(m)) - {"bitte"} <= seen]
    assert head.probabilities(messages).argmax(axis=1).tolist() == [0, 0, 1, 1, 2]


def test_router_scores_put_the_calibrated_threshold_on_the_router_threshold() -> None:
    labels = np.repeat(np.arange(4), 3)
    head = train_mixed(clusters(CENTRES, 3, 0.1, 6), ["some text"] * len(labels), labels, 4)
    fitted = Calibrated(head, confidence=None, threshold=0.4, background=3)
    probabilities = np.array([[0.4, 0.3, 0.2, 0.1], [0.7, 0.1, 0.1, 0.1], [0.3, 0.1, 0.1, 0.5]])
    scores = router_scores(probabilities, fitted, 0.0, 0.0, ROUTER)
    assert scores.shape == (3, 3)  # the background column is gone
    assert np.isclose(scores[0, 0], ROUTER)  # exactly at the threshold
    assert scores[1, 0] > ROUTER and np.isclose(scores[1, 0], ROUTER + 0.3 / 0.6 * (1 - ROUTER))
    assert scores[2].max() < ROUTER and scores[2].argmax() == 0  # background wins: rejected
    shifted = router_scores(probabilities, fitted, 0.1, 0.0, ROUTER)
    assert shifted[0, 0] < ROUTER  # a positive shift rejects the borderline message
    floored = router_scores(probabilities, fitted, 0.0, 0.8, ROUTER)
    assert floored[1, 0] < ROUTER  # the floor overrides a lower calibrated threshold


def embedding_spec(provider: str, name: str) -> ModelSpec:
    return ModelSpec(
        provider=provider,
        name=name,
        capabilities=frozenset({Capability.embeddings}),
        input_price_usd_per_mtok=0.0,
        output_price_usd_per_mtok=0.0,
        embedding_dimensions=64,
    )


async def test_the_router_embeds_with_its_pinned_model_not_the_cloud_one() -> None:
    cloud = ScriptedProvider(name="openai", model_specs=[embedding_spec("openai", "te-3-small")])
    local = ScriptedProvider(name="local", model_specs=[embedding_spec("local", "on-device")])
    ai = AiService([cloud, local], settings=AiSettings())
    assert (await GatewayEmbedder(ai, CONTEXT).embed(["hello"])).model == "local:on-device"
    pinned = GatewayEmbedder(ai, CONTEXT, "openai:te-3-small")
    assert (await pinned.embed(["hello"])).model == "openai:te-3-small"
    await ai.aclose()


async def test_without_the_pinned_model_the_router_falls_back_to_keywords() -> None:
    ai = AiService(
        [ScriptedProvider(name="openai", model_specs=[embedding_spec("openai", "x")])],
        settings=AiSettings(),
    )
    returns = Candidate("faq", "returns", ("How can I return an item?",), ("return",))
    routed = await route_message(
        "I want to return my shoes",
        [returns],
        embedder=GatewayEmbedder(ai, CONTEXT),
        threshold=ROUTER,
        similarity_threshold=0.0,
        similarity_floor=0.0,
        out_of_scope_rate=0.2,
        direct_rate=0.02,
    )
    assert (routed.kind, routed.target, routed.via) == ("faq", "returns", "keyword")
    await ai.aclose()


async def test_similarity_routes_a_paraphrase_and_rejects_off_topic() -> None:
    ai = AiService(
        [ScriptedProvider(name="local", model_specs=[embedding_spec("local", "x")])],
        settings=AiSettings(),
    )
    embedder = GatewayEmbedder(ai, CONTEXT)
    candidates = [
        Candidate(
            "faq",
            "opening",
            ("When are you open?", "What are your opening hours?", "opening hours today"),
        ),
        Candidate(
            "flow",
            "order",
            ("Where is my order?", "track my order", "my order has not arrived"),
        ),
    ]
    kwargs = {
        "embedder": embedder,
        "threshold": ROUTER,
        "similarity_threshold": 0.0,
        "out_of_scope_rate": 0.2,
        "direct_rate": 0.02,
    }
    routed = await route_message("where is my order", candidates, **kwargs, similarity_floor=0.0)
    assert (routed.kind, routed.target, routed.via) == ("flow", "order", "similarity")
    off_topic = await route_message(
        "Erzähl mir einen Witz über Katzen", candidates, **kwargs, similarity_floor=0.0
    )
    assert off_topic.kind == "out_of_scope"
    await ai.aclose()


SHOP = [
    Candidate(
        "faq",
        "opening",
        (
            "What are your opening hours?",
            "Wann habt ihr geöffnet?",
            "Quels sont vos horaires d'ouverture ?",
            "Are you open on Sundays?",
        ),
    ),
    Candidate(
        "faq",
        "returns",
        (
            "How can I return an item?",
            "Wie kann ich etwas zurückschicken?",
            "Comment retourner un produit ?",
            "Can I send back shoes that do not fit?",
        ),
    ),
    Candidate(
        "flow",
        "order",
        (
            "Where is my order?",
            "Wo ist meine Bestellung?",
            "Où en est ma commande ?",
            "My parcel has not arrived yet",
        ),
    ),
]


def on_device_routing(ai: AiService) -> dict[str, Any]:
    """route_message's arguments with the on-device model (bundled, offline) — what an
    author's assistant runs with — and the default out-of-scope calibration."""
    return {
        "embedder": GatewayEmbedder(ai, CONTEXT),
        "threshold": ROUTER,
        "similarity_threshold": 0.0,
        "similarity_floor": 0.0,
        "out_of_scope_rate": 0.2,
        "direct_rate": 0.02,
    }


async def test_on_device_model_routes_paraphrases_and_rejects_chatter_in_four_languages() -> None:
    ai = AiService([LocalEmbeddingProvider()], settings=AiSettings())  # the real on-device model
    kwargs = on_device_routing(ai)
    for message, target in (
        ("Bis wann habt ihr am Samstag offen?", "opening"),
        ("Posso restituire un articolo?", "returns"),
        ("mein Paket ist immer noch nicht da", "order"),
    ):
        assert (await route_message(message, SHOP, **kwargs)).target == target, message
    # Off-topic chatter, none of it a line of the shipped background set.
    for message in (
        "Erzähl mir einen Witz über Katzen",
        "Quel temps fera-t-il ce week-end ?",
        "Chi ha vinto la partita di calcio ieri?",
        "Write me a poem about the sea",
    ):
        assert (await route_message(message, SHOP, **kwargs)).kind == "out_of_scope", message
    await ai.aclose()


def test_a_keyword_hit_confirms_the_similarity_choice_but_does_not_override_it() -> None:
    opening = Candidate("faq", "opening", ("When are you open?",), ("open",))
    order = Candidate("flow", "order", ("Where is my order?",), ("order",))
    greeting = Candidate("greeting", "", (), ("hello",))
    similarity = [Scored(order, 0.5, "similarity"), Scored(opening, 0.2, "similarity")]
    # "open" names the opening FAQ, but the examples say the message is about the order.
    keywords = [Scored(opening, 0.75, "keyword"), Scored(order, 0.0, "keyword")]
    kept = confirming(keywords, similarity)
    assert [item.candidate for item in kept] == [order]
    routed = decide(merge(kept, similarity), ROUTER)
    assert (routed.kind, routed.target) == ("out_of_scope", None)  # 0.5: below the threshold
    confirmed = [Scored(order, 0.75, "keyword"), Scored(greeting, 0.75, "keyword")]
    assert decide(merge(confirming(confirmed, similarity), similarity), ROUTER).target == "order"
    # Candidates the similarity leg does not score (no examples) keep their keyword score,
    # and without similarity every keyword counts.
    assert greeting in [item.candidate for item in confirming(confirmed, similarity)]
    assert confirming(keywords, []) == keywords


# What an author writes: per FAQ a question and four variants, here all in German.
PRAXIS = [
    Candidate("faq", faq_id, examples)
    for faq_id, examples in (
        (
            "termin",
            (
                "Wie kann ich einen Termin vereinbaren?",
                "Termin buchen",
                "Kann ich online einen Termin abmachen?",
                "Ich möchte einen Termin für nächste Woche",
                "Habt ihr diese Woche noch einen freien Termin?",
            ),
        ),
        (
            "kosten",
            (
                "Was kostet eine Behandlung?",
                "Wie teuer ist die Konsultation?",
                "Preise für eine Sitzung",
                "Zahlt die Krankenkasse die Behandlung?",
                "Muss ich die Rechnung selber bezahlen?",
            ),
        ),
        (
            "parkieren",
            (
                "Wo kann ich parkieren?",
                "Gibt es Parkplätze bei der Praxis?",
                "Kann ich mit dem Auto kommen?",
                "Parkhaus in der Nähe",
                "Wie komme ich mit dem Zug zu euch?",
            ),
        ),
    )
]


async def test_five_german_variants_route_unseen_paraphrases_and_refuse_chatter() -> None:
    ai = AiService([LocalEmbeddingProvider()], settings=AiSettings())  # the real on-device model
    kwargs = on_device_routing(ai)
    for message, target in (
        ("Ist am Freitagnachmittag noch etwas frei?", "termin"),
        ("Übernimmt die Grundversicherung die Kosten?", "kosten"),
        ("Hat es Abstellplätze fürs Auto vor dem Haus?", "parkieren"),
    ):
        routed = await route_message(message, PRAXIS, **kwargs)
        assert (routed.kind, routed.target) == ("faq", target), message
    for message in ("Wer hat die letzte Fussball-WM gewonnen?", "Schreib mir ein Gedicht"):
        assert (await route_message(message, PRAXIS, **kwargs)).kind == "out_of_scope", message
    await ai.aclose()
