"""Swiss / German / English personal data the gateway must never send to a model when the
policy says neutralize. Each entry: the value as written and the entity type it must get."""

from __future__ import annotations

PII: list[tuple[str, str]] = [
    ("hans.muster@example.ch", "EMAIL"),
    ("Anna.Meier+rechnung@treuhand-meier.de", "EMAIL"),
    ("john.smith@example.co.uk", "EMAIL"),
    ("+41 44 668 18 00", "PHONE"),
    ("044 668 18 00", "PHONE"),
    ("079 123 45 67", "PHONE"),
    ("0041 79 123 45 67", "PHONE"),
    ("030 12345678", "PHONE"),
    ("+49 30 12345678", "PHONE"),
    ("+43 1 5123456", "PHONE"),
    ("01 42 68 53 00", "PHONE"),
    ("+39 06 6988 4857", "PHONE"),
    ("+423 235 12 34", "PHONE"),
    ("+44 20 7946 0958", "PHONE"),
    ("CH93 0076 2011 6238 5295 7", "IBAN"),
    ("DE89370400440532013000", "IBAN"),
    ("GB29 NWBK 6016 1331 9268 19", "IBAN"),
    ("4111 1111 1111 1111", "CARD"),
    ("5555-5555-5555-4444", "CARD"),
    ("756.1234.5678.97", "AHV"),
    ("7569217076985", "AHV"),
    ("CHE-116.281.710 MWST", "UID"),
    ("192.168.1.10", "IP"),
    ("2001:db8::8a2e:370:7334", "IP"),
]

# Text around the values, in the three languages the corpus covers.
TEMPLATES = [
    "Guten Tag, bitte überweisen Sie an {v}. Danke!",
    "Hello, you can reach me at {v} any time.",
    "Kontakt: {v} (Herr Muster, Bahnhofstrasse 1, 8001 Zürich)",
]

# Shapes that look numeric but are not personal data: must stay untouched.
NOT_PII = [
    "Meeting at 12:30:45 on 2024-01-15.",
    "Order 12345, invoice total CHF 1'234.50.",
    "ISBN 978-3-16-148410-0, version 1.2.3.4.5",
    "Amount 1234567890123.45 and ratio 3.14159",
    "Call the function f(x) = 2x + 1 at x = 7.",
]


def corpus_text() -> str:
    """Every value in every template — one document of realistic mixed PII."""
    return (
        "\n".join(template.format(v=value) for value, _ in PII for template in TEMPLATES[:1])
        + "\n"
        + "\n".join(NOT_PII)
    )
