"""A reply that announces a step instead of taking it, or says it cannot read what it can.

Seen from a 1.5B model right after `read_file` had returned notes.txt: "To answer your
question, I would need to search through the notes.txt file … However, this file is not
available for me to read directly." Such a reply gets one corrective message. The phrases also
occur in honest answers ("I cannot access your calendar"), so the next reply is taken as it is:
this check costs a round at most, never a run.
"""

from __future__ import annotations

import re

_STEP_VERBS_EN = (
    r"search|read|look|check|open|list|find|call|use|access|retrieve|browse|scan|review|consult"
)
ANNOUNCED_STEP = re.compile(
    # en: "I would need to search …", "I'll read …", "let me check …"
    r"\b(?:I|we)\s*(?:'ll|'d|\swill|\swould|\sneed to|\shave to|\smust|\sam going to|'m going to"
    r"|\sshould)\s+(?:need to\s+|have to\s+|first\s+|now\s+)*(?:" + _STEP_VERBS_EN + r")\b"
    r"|\blet me\s+(?:first\s+|now\s+)?(?:" + _STEP_VERBS_EN + r")\b"
    # de: "ich müsste zuerst die Datei durchsuchen", "lassen Sie mich nachsehen"
    r"|\b(?:ich|wir)\s+(?:muss|müsste|werde|würde|müssen|müssten|werden|sollte)\s+(?:\S+\s+){0,5}?"
    r"(?:durchsuchen|suchen|lesen|öffnen|nachsehen|nachschauen|prüfen|überprüfen|aufrufen"
    r"|auflisten|ansehen)\b"
    r"|\blass(?:en Sie)? mich\b"
    # fr: "je dois d'abord lire …", "laissez-moi chercher"
    r"|\bje\s+(?:dois|devrais|vais|devrai)\s+(?:d'abord\s+)?(?:chercher|rechercher|lire|vérifier"
    r"|ouvrir|consulter|lister|parcourir)\b"
    r"|\blaisse[zr]?-moi\b"
    # it: "devo prima leggere …", "cercherò", "lasciami controllare"
    r"|\b(?:devo|dovrei|dovrò)\s+(?:prima\s+)?(?:cercare|leggere|controllare|aprire|consultare"
    r"|elencare)\b"
    r"|\b(?:cercherò|leggerò|controllerò)\b|\blasciami\b",
    re.IGNORECASE,
)
CANNOT_READ = re.compile(
    r"\bnot (?:available|accessible) (?:for|to) me\b"
    r"|\b(?:I|we) (?:do not|don't|cannot|can't|am unable to) (?:have )?(?:access|read|open)\b"
    r"|\b(?:ich|wir) (?:habe|haben) keinen Zugriff\b|\bkann (?:\w+ ){0,3}nicht (?:lesen|öffnen)\b"
    r"|\bje n'ai pas accès\b|\bje ne peux pas (?:lire|ouvrir|accéder)\b"
    r"|\bnon ho accesso\b|\bnon posso (?:leggere|aprire|accedere)\b",
    re.IGNORECASE,
)


def deferred_step(text: str) -> str | None:
    """The phrase of `text` that announces a step or claims it cannot read, or None."""
    found = ANNOUNCED_STEP.search(text) or CANNOT_READ.search(text)
    return found.group(0) if found else None
