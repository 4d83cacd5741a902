"""CSV and XLSX → UDM: each sheet is a section (its name the heading) holding one table.

XLSX is read with openpyxl (MIT, the maintained reader/writer) in read-only mode, values only.
"""

from __future__ import annotations

import csv
import io
from itertools import islice

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import Document

MAX_ROWS = 100_000  # a sheet beyond this is cut; the summary says how many rows were read


def extract_csv(text: str, name: str) -> Document:
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(text[:4096], ",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = list(islice(csv.reader(io.StringIO(text), dialect), MAX_ROWS))
    builder = DocumentBuilder("csv")
    builder.heading(name, 1)
    builder.table(rows)
    return builder.build()


def extract_xlsx(data: bytes) -> Document:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    builder = DocumentBuilder("xlsx")
    try:
        for sheet in workbook.worksheets:
            rows = [
                ["" if value is None else str(value) for value in row]
                for row in islice(sheet.iter_rows(values_only=True), MAX_ROWS)
            ]
            builder.heading(sheet.title, 1)
            builder.table(rows)
    finally:
        workbook.close()
    return builder.build()
