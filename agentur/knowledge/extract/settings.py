"""OCR settings: Tesseract's languages and binary, and which PDF pages count as scanned."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings, count


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
    ocr_max_pages: int = count(200, "Pages of one file OCR reads at most; later pages are left.")
    ocr_tesseract_cmd: str = Field(
        default="tesseract", description="The Tesseract binary (name on PATH or absolute path)."
    )
