"""Whether a request instructs the agent to change the workspace (create a file or folder,
write into one, copy, move, rename, delete, send, save) — as opposed to asking a question, or
asking for text in the reply.

Used to hold a run to what it was asked: a run told to create a file that ends with a reply and
no successful tool call that changes anything did not do its job (seen from a 1.5B model: it
printed the file's text as its answer, and the run ended `completed` with nothing written).

Read per sentence, in the languages agentur's users write (en, de, fr, it):
- the verb must open a clause as an instruction: at the start of a sentence, after "and/then",
  after "please", or after "can you / could you" and the like ("How do I create a folder?" is a
  question and does not count);
- verbs that always act on something (copy, move, rename, delete, send, save, upload) count as
  they are; verbs that may just as well ask for text in the reply (create, write, add, draft)
  count only with a new container ("a new file", "einen Ordner") or a destination file name
  ("into saturday.txt", "named summary.txt") in the same sentence — "Write a summary of
  notes.txt" asks for a summary, not for a file.
"""

from __future__ import annotations

import re

_ACTING = (
    r"copy|move|rename|delete|send|save|store|upload|export"
    r"|kopiere|kopier|kopieren|verschiebe|verschieb|verschieben|benenne|umbenennen|lösche|lösch"
    r"|löschen|sende|send|senden|schicke|schick|schicken|speichere|speicher|speichern"
    r"|lade|hochladen|exportiere|exportieren"
    r"|copie|copiez|copier|déplace|déplacez|déplacer|renomme|renommez|renommer|supprime"
    r"|supprimez|supprimer|envoie|envoyez|envoyer|enregistre|enregistrez|enregistrer"
    r"|sauvegarde|sauvegardez|sauvegarder|exporte|exportez|exporter"
    r"|copia|copiare|sposta|spostare|rinomina|rinominare|elimina|eliminare|cancella|cancellare"
    r"|invia|inviare|manda|mandare|salva|salvare|esporta|esportare"
)
_CREATING = (
    r"create|make|write|add|put|draft|generate"
    r"|erstelle|erstell|erstellen|lege|leg|anlegen|schreibe|schreib|schreiben|füge|füg"
    r"|hinzufügen|verfasse|verfassen|generiere|generieren"
    r"|crée|créez|créer|écris|écrivez|écrire|ajoute|ajoutez|ajouter|rédige|rédigez|rédiger"
    r"|crea|creare|scrivi|scrivere|aggiungi|aggiungere|redigi|redigere|metti|mettere"
)
# What may come before an instruction's verb in its clause.
_OPENER = (
    r"(?:^|\b(?:and|then|und|dann|danach|anschliessend|et|puis|ensuite|e|poi|quindi)\s+)"
    r"(?:(?:please|bitte|s'il te plaît|s'il vous plaît|per favore|per piacere),?\s+)?"
    r"(?:(?:can|could|would|will) you (?:please )?|(?:kannst|könntest) du (?:bitte )?"
    r"|(?:können|könnten) sie (?:bitte )?|(?:peux|pourrais)-tu |(?:pouvez|pourriez)-vous "
    r"|(?:puoi|potresti|può|potrebbe) |i (?:want|need) you to |ich möchte,? dass du )?"
)
_ACTING_INSTRUCTION = re.compile(rf"{_OPENER}(?:{_ACTING})\b", re.IGNORECASE)
_CREATING_INSTRUCTION = re.compile(rf"{_OPENER}(?:{_CREATING})\b", re.IGNORECASE)
_CONTAINER = r"(?:file|folder|document|note|datei|ordner|dokument|notiz|fichier|dossier|cartella|documento|nota)"  # noqa: E501
_NEW_CONTAINER = re.compile(
    r"\b(?:a|an|one|new|ein|eine|einen|neue|neuen|neues|un|une|nouveau|nouvel|nouvelle"
    rf"|una|uno|nuovo|nuova)\s+(?:\w+\s+)?{_CONTAINER}\b",
    re.IGNORECASE,
)
_DESTINATION_NAME = re.compile(
    r"\b(?:into|to|in|as|named|called|ins|namens|als|dans|nommé|nommée|appelé|appelée|nel|nella"
    rf"|chiamato|chiamata|come)\s+(?:(?:the|die|den|das|le|la|il|lo)\s+)?(?:{_CONTAINER}\s+)?"
    r"[\w-]+\.[a-z0-9]{1,5}\b",
    re.IGNORECASE,
)
# Questions about how something is done ask for an explanation, not for the change.
_HOW_TO = re.compile(
    r"\b(?:how (?:do|can|could|should|would) (?:i|we|one)|how to|is it possible to"
    r"|wie (?:kann|könnte|muss|soll) (?:ich|man|wir)"
    r"|comment (?:puis-je|peut-on|faire pour)|come (?:posso|si può|faccio a))\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def asks_for_change(request: str) -> bool:
    """`request` instructs the agent to change the workspace, as far as its wording shows."""
    for sentence in _SENTENCE_END.split(request.strip()):
        if _HOW_TO.search(sentence):
            continue
        if _ACTING_INSTRUCTION.search(sentence):
            return True
        if _CREATING_INSTRUCTION.search(sentence) and (
            _NEW_CONTAINER.search(sentence) or _DESTINATION_NAME.search(sentence)
        ):
            return True
    return False
