"""OCR: scanned PDF pages and images (PNG, JPEG, TIFF) to text with positions, offline,
with Tesseract (Debian `tesseract-ocr` plus the `-deu`/`-fra`/`-ita` language data) through
pytesseract. Words come back with their boxes; lines and paragraphs follow Tesseract's own
layout analysis, and every block keeps its page number for citations."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentur.errors import InvalidInputError
from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.udm import ContentType, Document

if TYPE_CHECKING:
    from PIL.Image import Image


@dataclass(frozen=True, slots=True)
class OcrLine:
    text: str
    paragraph: tuple[int, int]  # Tesseract's (block, paragraph) numbers
    left: int
    top: int
    width: int
    height: int
    confidence: float  # mean word confidence, 0–100


def unavailable_reason(settings: OcrSettings) -> str | None:
    if shutil.which(settings.ocr_tesseract_cmd) is None:
        return f"OCR needs Tesseract, and {settings.ocr_tesseract_cmd!r} is not installed"
    return None


def ocr_lines(image: Image, settings: OcrSettings) -> list[OcrLine]:
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = settings.ocr_tesseract_cmd
    data = pytesseract.image_to_data(
        image, lang=settings.ocr_languages, output_type=pytesseract.Output.DICT
    )
    lines: dict[tuple[int, int, int], list[int]] = {}
    for i, word in enumerate(data["text"]):
        if word.strip() and float(data["conf"][i]) >= 0:
            key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
            lines.setdefault(key, []).append(i)
    result = []
    for (block, paragraph, _), words in lines.items():
        left = min(data["left"][i] for i in words)
        top = min(data["top"][i] for i in words)
        right = max(data["left"][i] + data["width"][i] for i in words)
        bottom = max(data["top"][i] + data["height"][i] for i in words)
        confidence = sum(float(data["conf"][i]) for i in words) / len(words)
        text = " ".join(data["text"][i] for i in words)
        result.append(
            OcrLine(text, (block, paragraph), left, top, right - left, bottom - top, confidence)
        )
    return result


def add_ocr_page(builder: DocumentBuilder, page: int, lines: list[OcrLine]) -> None:
    """One text block per Tesseract paragraph, in reading order."""
    paragraphs: dict[tuple[int, int], list[str]] = {}
    for line in lines:
        paragraphs.setdefault(line.paragraph, []).append(line.text)
    for texts in paragraphs.values():
        builder.block(ContentType.text, "\n".join(texts), page)


def extract_image(data: bytes, settings: OcrSettings) -> Document:
    """An image file (each TIFF frame a page) to a document by OCR."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    if why := unavailable_reason(settings):
        raise InvalidInputError(why)
    try:
        image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError as error:
        raise InvalidInputError(f"not a readable image: {error}") from error
    builder = DocumentBuilder("image")
    count = 0
    for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
        if number > settings.ocr_max_pages:
            break
        add_ocr_page(builder, number, ocr_lines(frame.convert("RGB"), settings))
        count = number
    builder.page_count = count
    return builder.build()
