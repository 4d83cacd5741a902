"""What a model call is for (G3); the selector picks models by it."""

from __future__ import annotations

from enum import StrEnum


class OperationType(StrEnum):
    plan = "plan"
    data_analyse = "data_analyse"
    data_generate = "data_generate"
    data_extract = "data_extract"
    image_analyse = "image_analyse"
    image_generate = "image_generate"
    neutralization_text = "neutralization_text"
    neutralization_image = "neutralization_image"
    web_search = "web_search"
    web_crawl = "web_crawl"
    translate = "translate"
    speech_to_text = "speech_to_text"
    text_to_speech = "text_to_speech"
    agent = "agent"
    embedding = "embedding"
