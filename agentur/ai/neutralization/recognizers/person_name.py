"""Person names in running text, without a model: a name counts only next to evidence.

- a known given name followed by a capitalized word ("Hans Zwahlen", "Jean-Pierre Favre");
- an honorific or title: Herr/Frau/Hr./Fr./Dr./Prof., Monsieur/Madame/M./Mme, Signor/Signora/
  Sig./Dott., Mr/Mrs/Ms ("Frau Zwahlen", "Mme Rochat", "Frau Dr. Iris Leuenberger");
- a cue phrase: "mein Name ist", "ich heisse", "my name is", "je m'appelle", "mi chiamo",
  form labels ("Name:", "Absender:", "Kontaktperson:", "Account holder:") and letter closings
  ("Freundliche Grüsse", "Best regards", "Cordialement", "Cordiali saluti").

After a cue the known given names are taken, then one family name (any capitalized word,
"von"/"de"/"di" particles allowed), so "Herrn Müller Bescheid geben" stops at "Müller". Not
found: a family name alone without a cue ("Müller hat angerufen"), a given name alone, names
written in lower case. The honorific stays in the text ("Herr [PERSON_1]"): it carries no
identity and keeps the model's grammar right.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span
from agentur.ai.neutralization.recognizers.gazetteer import is_given_name, normalized

UPPER, LOWER = "A-ZÀ-ÖØ-Þ", "a-zß-öø-ÿ"
WORD = rf"[{UPPER}][{LOWER}]+(?:['’-][{UPPER}][{LOWER}]+)*"
INITIAL = rf"[{UPPER}]\."
PARTICLE = r"(?:von|van|vom|de|di|da|del|della|du|des|dos|zur|zu|le|la|dal|ten|ter|d['’])"
# A run of candidate words after a cue; which of them belong to the name is decided below.
RUN = re.compile(rf"(?:(?:{INITIAL}|{PARTICLE}\s|{WORD})\s*){{1,5}}")
TOKEN = re.compile(rf"{INITIAL}|{PARTICLE}(?=\s)|{WORD}")

HONORIFIC = (
    r"(?:Herrn?|Frau|Hr\.|Fr\.|Monsieur|Madame|Mademoiselle|M\.|Mmes?\.?|Mlle\.?|Ma[îi]tre|"
    r"Signora|Signorina|Signor|Sig\.r?a|Sig\.na|Sig\.|Dott\.ssa|Dott\.?|Dr\.?|Prof\.|"
    r"Mrs\.?|Mr\.?|Ms\.?|Miss|Sir)"
)
TITLES = r"(?:(?:Dr\.|Prof\.|med\.|phil\.|iur\.|dent\.|vet\.|Dipl\.-Ing\.|Ing\.|lic\.)\s+)*"
SPEAKING = (
    r"(?i:mein\s+Name\s+ist|ich\s+heisse|ich\s+heiße|my\s+name\s+is|je\s+m['’]appelle|"
    r"je\s+me\s+nomme|mi\s+chiamo|il\s+mio\s+nome\s+è)"
)
ROLE = r"(?:Kunde|Kundin|Patient(?:in)?|Versicherte[rn]?|Versicherungsnehmer(?:in)?)"
LABEL = (
    r"(?:(?:Vor-?\s*und\s+Nach)?[Nn]ame|Nachname|Familienname|Nom|Nome|Cognome|Surname|"
    r"Last\s+name|Full\s+name|Kontaktperson|Contact\s+person|Ansprechpartner(?:in)?|Absender|"
    r"Sender|Expéditeur|Mittente|Account\s+holder|Kontoinhaber(?:in)?|Titulaire|Titolare|"
    r"Unterschrift|Signature|Inhaber(?:in)?|Mieter(?:in)?|Client(?:e)?|Destinataire|"
    r"Empfänger(?:in)?)\s*:"
)
CLOSING = (
    r"(?:(?:Freundliche|Liebe|Beste|Herzliche|Viele|Mit\s+freundlichen|Mit\s+besten)\s+"
    r"Gr(?:ü|ue)(?:ss|ß)(?:e|en)|Gr(?:ü|ue)(?:ss|ß)e?|Gruss|Gruß|"
    r"(?:Best|Kind|Warm)\s+regards|Regards|Sincerely|Yours\s+sincerely|Cheers|"
    r"Cordialement|Meilleures\s+salutations|Salutations|Bien\s+à\s+vous|"
    r"(?:Cordiali|Distinti)\s+saluti|Saluti|Un\s+saluto)[,!.]?"
)
# After an honorific or role: given names, then one family word. After a phrase, a label or a
# closing the writer names someone outright: up to MAX_WORDS capitalized words.
CUED = re.compile(
    rf"(?<![\w.])(?:(?P<title>(?:{HONORIFIC}|{ROLE})\s+{TITLES})|(?:{SPEAKING}|{LABEL}|{CLOSING})\s+)"
    rf"(?=[{UPPER}]|{PARTICLE}\s+[{UPPER}])"
)
GIVEN_START = re.compile(rf"(?<![\w.'’-]){WORD}(?![\w'’-])")

_STOP_TEXT = """
Der Die Das Den Dem Des Ein Eine Einen Und Oder Aber Auch Im Am In An Auf Aus Mit Von Vom Zu
Zum Zur Bei Nach Für Wie Was Wer Wo Wann Ich Du Er Sie Es Wir Ihr Ihnen Bitte Danke Herr Frau
Le La Les Un Une Et Ou Il Elle Ils Elles Je Tu Nous Vous Avec Pour Sur Dans Merci Monsieur Madame
Lo Gli Uno Una Io Noi Voi Loro Con Per Su Da Del Della Grazie Signor Signora
The An And Or Of To On At For With From By He She We They You It My Your Our Thanks Dear Mr Mrs
Januar Februar März April Mai Juni Juli August September Oktober November Dezember
Janvier Février Mars Avril Juin Juillet Août Septembre Octobre Novembre Décembre
Gennaio Febbraio Marzo Aprile Maggio Giugno Luglio Agosto Settembre Ottobre Dicembre
January February March May June July October December
Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag Lundi Mardi Mercredi Jeudi Vendredi
Samedi Dimanche Lunedì Martedì Mercoledì Giovedì Venerdì Sabato Domenica Monday Tuesday Wednesday
Thursday Friday Saturday Sunday
AG GmbH SA Sàrl Sarl Ltd Inc KG Srl SpA Co Cie Holding Group Gruppe Versicherung Versicherungen
Bank Banque Banca Stiftung Verein Museum Hotel Restaurant Schweiz Suisse Svizzera Switzerland
Direktor Direktorin Präsident Präsidentin Doktor Professor Kollege Kollegin Pfarrer Minister
Bundesrat Bundesrätin Gemeindepräsident Chef Chefin Team Service Support Kundendienst
"""
STOP = frozenset(_STOP_TEXT.split())
# Given names that are far more often something else at the start of a capitalized pair.
_AMBIGUOUS_TEXT = """
Mark Will May June April August Rose Grace Hope Art Bill Frank Christian Florence Paris Summer
Dean Miles Chance Joy Faith Page Sky Olive Hunter Guy Sunny Angel Ernst Heide Horst Mai Juli Juni
Gloria Victoria Fortuna Amor Justice Lane Lance Austin Jordan Jersey Georgia Virginia Carolina
Adelaide Lourdes Sion Lyon Baron Bay Berry Blair Brand Carter Cash Chase Clay Cliff Crystal Dale
Dawn Destiny Earl Eden Grant Harley Harmony Heather Holly Ivy Jade King Major Melody Mercedes Misty
Pearl Penny Porter River Robin Ruby Sage Scarlett Spencer Sterling Storm Taylor Tiffany Travis
Tucker Wade Walker Winter Wolf German Line
"""
AMBIGUOUS_GIVEN = frozenset(_AMBIGUOUS_TEXT.split())
# Brands and places built from a given name and a word.
NOT_PERSONS = frozenset(
    {"Hugo Boss", "Tommy Hilfiger", "Calvin Klein", "Louis Vuitton", "Franz Carl Weber"}
)
MAX_GIVEN = 3
MAX_WORDS = 3


def _tokens(text: str, start: int) -> list[re.Match[str]]:
    run = RUN.match(text, start)
    return list(TOKEN.finditer(text, start, run.end())) if run else []


def _is_name_word(token: str) -> bool:
    return token not in STOP and not token.isupper()


def _name_end(tokens: list[re.Match[str]], *, need_given: bool) -> int | None:
    """End of the name at the start of `tokens`: known given names (or initials), then one
    family word (after an optional particle). `need_given`: no cue before, so the run must
    start with a known given name and have a family word after it."""
    given = 0
    index = 0
    while index < len(tokens) and given < MAX_GIVEN:
        word = tokens[index].group()
        known = re.fullmatch(INITIAL, word) or (
            is_given_name(word) and (given or not need_given or word not in AMBIGUOUS_GIVEN)
        )
        if not known or not _is_name_word(word):
            break
        given += 1
        index += 1
    if need_given and not given:
        return None
    end = tokens[index - 1].end() if given else None
    if index < len(tokens) and re.fullmatch(PARTICLE, tokens[index].group()):
        index += 1
    if index < len(tokens):
        word = tokens[index].group()
        if re.fullmatch(WORD, word) and _is_name_word(word):
            return tokens[index].end()
    if need_given:
        return None  # "Anna" alone, or "Anna Die"
    if given and re.fullmatch(INITIAL, tokens[given - 1].group()):
        return None  # only initials after a cue: not a name
    return end


def _named_outright(tokens: list[re.Match[str]]) -> int | None:
    """End of up to MAX_WORDS name words (initials and particles inside) after a strong cue."""
    end = None
    for count, token in enumerate(tokens[: MAX_WORDS + 1]):
        word = token.group()
        if re.fullmatch(PARTICLE, word) and count:
            continue
        if not (re.fullmatch(INITIAL, word) or (re.fullmatch(WORD, word) and _is_name_word(word))):
            break
        if not re.fullmatch(INITIAL, word):
            end = token.end()
    return end


def _candidates(text: str) -> Iterator[tuple[int, int]]:
    for cue in CUED.finditer(text):
        tokens = _tokens(text, cue.end())
        if not tokens:
            continue
        titled = cue.group("title")
        end = _name_end(tokens, need_given=False) if titled else _named_outright(tokens)
        if end is not None:
            yield tokens[0].start(), end
    for word in GIVEN_START.finditer(text):
        if not is_given_name(word.group()):
            continue
        end = _name_end(_tokens(text, word.start()), need_given=True)
        if end is not None:
            yield word.start(), end


def find_person_names(text: str) -> Iterator[Span]:
    spans: list[list[int]] = []
    for start, end in sorted(_candidates(text)):
        if text[start:end] in NOT_PERSONS:
            continue
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    for start, end in spans:
        yield Span(start, end, " ".join(normalized(w) for w in text[start:end].split()))


PERSON = Recognizer("PERSON", find_person_names, priority=45)
