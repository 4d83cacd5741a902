"""OCR: scanned PDF pages and images (PNG, JPEG, TIFF) to text with positions, offline,
with Tesseract (Debian `tesseract-ocr` plus the `-deu`/`-fra`/`-ita` language data) through
pytesseract. Words come back with their boxes; lines and paragraphs follow Tesseract's own
layout analysis, and every block keeps its page number for citations."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from pydantic import Field

from agentur.config import PartSettings
from agentur.errors import InvalidInputError
from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document

if TYPE_CHECKING:
    from PIL.Image import Image


class OcrSettings(PartSettings):
    ocr_languages: str = Field(
        default="deu+fra+ita+eng",
        description="Tesseract languages, `+`-separated (each needs its `tesseract-ocr-<lang>` "
        "package).",
    )
    ocr_dpi: int = Field(
        default=300, ge=72, le=600, description="Resolution scanned PDF pages are rendered at."
    )
    ocr_min_page_chars: int = Field(
        default=20,
        ge=0,
        description="A PDF page with fewer text characters than this is treated as scanned.",
    )
    ocr_max_pages: int = Field(
        default=200, ge=1, description="Pages of one file OCR reads at most; later pages are left."
    )
    ocr_tesseract_cmd: str = Field(
        default="tesseract", description="The Tesseract binary (name on PATH or absolute path)."
    )


@dataclass(frozen=True, slots=True)
class OcrLine:
    text: str
    paragraph: tuple[int, int]  # Tesseract's (block, paragraph) numbers
    left: int
    top: int
    width: int
    height: int
    confidence: float  # mean word confidence, 0–100


@cache
def settings() -> OcrSettings:
    return OcrSettings()


def unavailable_reason() -> str | None:
    if shutil.which(settings().ocr_tesseract_cmd) is None:
        return f"OCR needs Tesseract, and {settings().ocr_tesseract_cmd!r} is not installed"
    return None


def ocr_lines(image: Image) -> list[OcrLine]:
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = settings().ocr_tesseract_cmd
    data = pytesseract.image_to_data(
        image, lang=settings().ocr_languages, output_type=pytesseract.Output.DICT
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


def extract_image(data: bytes) -> Document:
    """An image file (each TIFF frame a page) to a document by OCR."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    if why := unavailable_reason():
        raise InvalidInputError(why)
    try:
        image = Image.open(io.BytesIO(data))
    except UnidentifiedImageError as error:
        raise InvalidInputError(f"not a readable image: {error}") from error
    builder = DocumentBuilder("image")
    count = 0
    for number, frame in enumerate(ImageSequence.Iterator(image), start=1):
        if number > settings().ocr_max_pages:
            break
        add_ocr_page(builder, number, ocr_lines(frame.convert("RGB")))
        count = number
    builder.page_count = count
    return builder.build()
