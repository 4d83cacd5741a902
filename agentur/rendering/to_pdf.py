"""Blocks to PDF with fpdf2. Text is set in DejaVu Sans — the TTF matplotlib ships, so no
system font is needed — which covers umlauts, accents and the other Latin/Greek/Cyrillic
characters of our four languages (the PDF core fonts are Latin-1 only)."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from fpdf import FPDF
from fpdf.fonts import FontFace

from agentur.rendering.blocks import BulletList, Code, Document, Heading, Image, Paragraph, Table

FONT = "DejaVu"
HEADING_SIZES = {1: 18, 2: 15, 3: 13}
BODY_SIZE = 11
LINE_HEIGHT = 6


@cache
def _font_dir() -> Path:
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


def render_pdf(document: Document) -> bytes:
    pdf = FPDF()
    pdf.set_title(document.title)
    pdf.add_font(FONT, "", str(_font_dir() / "DejaVuSans.ttf"))
    pdf.add_font(FONT, "B", str(_font_dir() / "DejaVuSans-Bold.ttf"))
    pdf.add_font("DejaVuMono", "", str(_font_dir() / "DejaVuSansMono.ttf"))
    pdf.add_page()
    for block in document.blocks:
        if isinstance(block, Heading):
            pdf.set_font(FONT, "B", HEADING_SIZES.get(block.level, BODY_SIZE + 1))
            pdf.multi_cell(0, LINE_HEIGHT + 2, block.text, new_x="LMARGIN", new_y="NEXT")
        elif isinstance(block, Paragraph):
            pdf.set_font(FONT, "", BODY_SIZE)
            pdf.multi_cell(0, LINE_HEIGHT, block.text, new_x="LMARGIN", new_y="NEXT")
        elif isinstance(block, BulletList):
            pdf.set_font(FONT, "", BODY_SIZE)
            for number, item in enumerate(block.items, start=1):
                mark = f"{number}." if block.ordered else "•"
                pdf.multi_cell(0, LINE_HEIGHT, f"{mark} {item}", new_x="LMARGIN", new_y="NEXT")
        elif isinstance(block, Table):
            pdf.set_font(FONT, "", BODY_SIZE - 1)
            with pdf.table(headings_style=FontFace(emphasis="BOLD")) as table:
                for row in [block.header, *block.rows]:
                    cells = table.row()
                    for text in row:
                        cells.cell(text)
        elif isinstance(block, Code):
            pdf.set_font("DejaVuMono", "", BODY_SIZE - 2)
            pdf.multi_cell(0, LINE_HEIGHT - 1, block.text, new_x="LMARGIN", new_y="NEXT")
        elif isinstance(block, Image) and block.source in document.images:
            pdf.image(io.BytesIO(document.images[block.source]), w=pdf.epw)
        pdf.ln(2)
    return bytes(pdf.output())
