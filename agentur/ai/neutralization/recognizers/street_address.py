"""Street + house number in the address styles of CH/DE/AT/LI/FR/IT and English.

- German compounds ending in strasse/straße/str./weg/gasse/platz/allee/ring/rain/graben/quai/
  matte/halde/steig/stutz (optionally "Obere", "St."…), or "Am Rain"/"Im Grund"-style names,
  followed by the number ("Bahnhofstrasse 12", "Industriestr. 17b", "Am Rain 4");
- French and Italian type words before the name (rue, avenue, chemin, route, boulevard, place,
  quai, allée, impasse; via, viale, vicolo, piazza, corso, largo, strada, contrada, salita),
  the number after ("Rue du Lac 14", "Via Nassa 9") or, in French, before ("12 rue de la Gare");
- English number + name + Street/Road/Lane/… ("221 Baker Street").

A street without a number ("Bahnhofstrasse" alone) is a place, not an address: not found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

UPPER, LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
NUMBER = r"\d{1,4}(?:\s?[a-zA-Z](?![\w]))?(?:[/-]\d{1,4})?"
CAPITAL = rf"[{UPPER}][\w'’.-]*"
GERMAN_SUFFIX = (
    r"(?:strasse|straße|str\.|weg|gasse|gässli|platz|plätzli|allee|ring|rain|graben|quai|"
    r"matte|halde|steig|stutz|promenade|ufer|damm|chaussee)"
)
GERMAN_ADJECTIVE = (
    r"(?:(?:Obere|Untere|Alte|Neue|Grosse|Kleine|Hintere|Vordere|Innere|Äussere|Mittlere|Hohe|"
    r"Lange|Obere[rns]?|Untere[rns]?|St\.|Sankt)\s+)"
)
GERMAN = re.compile(
    rf"(?<![\w-]){GERMAN_ADJECTIVE}?[{UPPER}][\w.'’-]*?{GERMAN_SUFFIX}\s+{NUMBER}(?![\w.,]\d)",
    re.IGNORECASE,
)
# Where GERMAN can match at all: a number after a space, the word before it ending in a suffix
# (scanning for digits is cheap; scanning for the suffix alternation is not).
SPACE_DIGIT = re.compile(r"\s\d")
SUFFIX_END = re.compile(rf"{GERMAN_SUFFIX}\s*$", re.IGNORECASE)
WORD_STARTS = re.compile(r"(?<![\w.'’-])\S")
# "Am Rain 4", "Im Grund 12", "Auf der Mauer 2": only with a short house number, and never
# the counting nouns that follow these prepositions ("im Raum 4", "am Tag 3").
PREPOSITION = re.compile(
    rf"(?<![\w-])(?:Am|Im|Auf\s+der|An\s+der|In\s+der|Zum|Zur|Beim|Unter\s+den|Hinter\s+der)\s+"
    rf"(?P<noun>[{UPPER}][{LOWER}]+)\s+\d{{1,3}}[a-z]?(?![\w.,]\d|\d)"
)
_COUNTING_TEXT = """
Jahr Jahre Monat Tag Tage Woche Raum Zimmer Saal Stock Geschoss Gleis Seite Kapitel Abschnitt
    Artikel Absatz Ziffer Teil Band Heft Punkt Schritt Level Sektor Bereich Block Gebäude Haus
    Lager Regal Zug Bus Tram Linie Kurs Modul Version Spiel Runde Minute Sekunde Stunde Alter
    Moment Vergleich Durchschnitt Schnitt Total Rang Platz Team Büro Feld Fach Los Paket Anhang
    Januar Februar März April Mai Juni Juli August September Oktober November Dezember
"""
COUNTING_NOUNS = frozenset(_COUNTING_TEXT.split())
ROMANCE_TYPE = (
    r"(?:rue|avenue|av\.|chemin|ch\.|route|rte|boulevard|bd|place|quai|allée|impasse|passage|"
    r"sentier|promenade|esplanade|faubourg|ruelle|via|viale|vicolo|piazza|piazzale|corso|"
    r"largo|strada|contrada|salita|riva|lungolago)"
)
ROMANCE_LINK = (
    r"(?:de|du|des|de\s+la|de\s+l['’]|d['’]|la|le|les|l['’]|del|della|dei|degli|delle|di|da|al|"
    r"alla|San|Santa|S\.)"
)
ROMANCE_NAME = rf"(?:{ROMANCE_LINK}\s*)*{CAPITAL}(?:[\s-]+(?:{ROMANCE_LINK}\s*)*{CAPITAL}){{0,3}}"
ROMANCE_AFTER = re.compile(
    rf"(?<![\w-])(?i:{ROMANCE_TYPE})\s+{ROMANCE_NAME}\s+{NUMBER}(?![\w.,]\d|\d)"
)
FRENCH_BEFORE = re.compile(
    rf"(?<![\w.,-])\d{{1,4}}(?:\s?(?:bis|ter|[a-z]))?,?\s+(?i:{ROMANCE_TYPE})\s+{ROMANCE_NAME}"
)
ENGLISH = re.compile(
    rf"(?<![\w.,-])\d{{1,4}}[A-Za-z]?\s+(?:[{UPPER}][{LOWER}]+\s+){{1,3}}"
    r"(?:Street|St\.|Road|Rd\.|Lane|Avenue|Ave\.|Drive|Way|Close|Place|Square|Crescent|"
    r"Terrace|Court|Gardens|Row|Boulevard|Mews|Walk)(?![\w])"
)


def _german(text: str) -> Iterator[Span]:
    """GERMAN tried only at the two word starts before each suffix + number: scanning the
    whole text with a lazy, case-insensitive pattern costs ten times more."""
    end = 0
    for digit in SPACE_DIGIT.finditer(text):
        if digit.start() < end or not SUFFIX_END.search(
            text, max(0, digit.start() - 12), digit.end() - 1
        ):
            continue
        window = max(0, digit.start() - 60)
        starts = [m.start() for m in WORD_STARTS.finditer(text, window, digit.start())][-2:]
        for start in starts:
            match = GERMAN.match(text, start)
            if match:
                end = match.end()
                yield Span(match.start(), match.end())
                break


def find_street_addresses(text: str) -> Iterator[Span]:
    yield from _german(text)
    for pattern in (ROMANCE_AFTER, FRENCH_BEFORE, ENGLISH):
        for match in pattern.finditer(text):
            yield Span(match.start(), match.end())
    for match in PREPOSITION.finditer(text):
        if match.group("noun") not in COUNTING_NOUNS:
            yield Span(match.start(), match.end())


STREET = Recognizer("STREET", find_street_addresses, priority=55)
