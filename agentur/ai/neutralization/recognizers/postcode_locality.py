"""Postcode + locality: "8001 Zürich", "CH-8004 Zürich", "9490 Vaduz", "80331 München",
"75008 Paris", "6000 Luzern 16", "9000 St. Gallen", "1400 Yverdon-les-Bains", "Wil SG".

Four digits (CH, LI, AT) or five (DE, FR, IT), then a capitalized locality. A number followed
by a capitalized word is often something else in German ("8001 Anträge", "2024 Umsatz"), so a
match needs one more piece of evidence:
- a country prefix (CH-, FL-, LI-, D-, A-, F-, I-), or
- the locality is in the gazetteer (`data/localities.txt`), or
- it is an address line: after a street and a comma, at a line start or after "Postfach", and
  followed by the end of the clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span
from agentur.ai.neutralization.recognizers.gazetteer import localities

UPPER = "A-ZÀ-ÖØ-Þ"
PLACE_WORD = rf"[{UPPER}][\w'’]*(?:[-/][\w'’]+)*"
# Words that make a locality two words long: "St. Gallen", "La Chaux-de-Fonds", "Davos Dorf",
# "Stein am Rhein", "Buchs SG".
PREFIXES = r"(?:St\.|Sankt|Ste?\.|Saint|Sainte|San|Santa|Sant['’]|La|Le|Les|Bad|Val|Monte|Ponte)"
QUALIFIER = (
    r"(?:Dorf|Platz|Stadt|Bad|Station|Nord|Süd|Ost|West|Village|Centre|Ville|"
    r"AG|AI|AR|BE|BL|BS|FR|GE|GL|GR|JU|LU|NE|NW|OW|SG|SH|SO|SZ|TG|TI|UR|VD|VS|ZG|ZH)"
)
LOCALITY = (
    rf"(?P<place>(?:{PREFIXES}\s+)?{PLACE_WORD}"
    rf"(?:\s+(?:am|an\s+der|im|ob|bei|sur|sous|près|di|in)\s+{PLACE_WORD}|\s+{QUALIFIER}(?!\w))?)"
    r"(?:\s+\d{1,2}(?![\d.:]))?"
)
POSTCODE_LOCALITY = re.compile(
    rf"(?<![\w.,'’-])(?P<country>(?:CH|FL|LI|D|A|F|I)-)?(?P<code>\d{{4,5}})\s+{LOCALITY}"
    r"(?![\w-])"
)
# What may stand right before an address line's postcode.
# (Prepositions are no evidence: "von 2800 Nichtjuden", "in 2800 Fällen".)
ADDRESS_BEFORE = re.compile(
    r"(?:^|\n|,|;|\(|:|Postfach|Case\s+postale|Casella\s+postale)\s*$", re.IGNORECASE
)
CLAUSE_END = re.compile(r"\s*(?:$|[\n,.;:)!?]|und\b|et\b|e\b|and\b)")
SWISS_OR_AUSTRIAN = range(1000, 9999 + 1)
GERMAN_FRENCH_ITALIAN = range(1000, 99999 + 1)


def _plausible_code(code: str) -> bool:
    number = int(code)
    return number in SWISS_OR_AUSTRIAN if len(code) == 4 else number in GERMAN_FRENCH_ITALIAN


def find_postcode_localities(text: str) -> Iterator[Span]:
    known = localities()
    for match in POSTCODE_LOCALITY.finditer(text):
        if not _plausible_code(match.group("code")):
            continue
        place = match.group("place")
        evidence = (
            match.group("country")
            or place in known
            or place.split()[0] in known
            or (
                ADDRESS_BEFORE.search(text, max(0, match.start() - 40), match.start())
                and CLAUSE_END.match(text, match.end())
            )
        )
        if evidence:
            yield Span(match.start(), match.end())


LOCALITY_RECOGNIZER = Recognizer("LOCALITY", find_postcode_localities, priority=55)
