"""Word tokens for the keyword router and the model-free extractive answer.

Lower-cased, accent-folded words without a small multilingual stop list, cut to a prefix so
"refunds"/"refund" and "Öffnungszeiten"/"Öffnungszeit" meet — a deliberately crude stemmer
that works the same in every language we speak.
"""

from __future__ import annotations

import re
import unicodedata

STEM_LENGTH = 6
WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOP_TEXT = """
a an and are as at be by can could do does for from have how i if in is it me my of on or our
please the to was we what when where which who why will with would you your
der die das den dem des ein eine einen einem ich ist sind und oder wie was wo wann warum mit
mein meine mir mich sie ihr ihre bitte zu im am auf fur von kann konnen es
le la les un une des et ou est je vous nous de du pour avec mon ma mes qui que quoi
il lo gli uno una e o di da per con mio mia che sono
el los las unos unas y es de del para con mi que por como
"""
STOP_WORDS = frozenset(word for line in _STOP_TEXT.splitlines() for word in line.split())


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def words(text: str) -> list[str]:
    return WORD.findall(fold(text))


def stems(text: str) -> list[str]:
    """Content-word stems in order (stop words dropped)."""
    return [word[:STEM_LENGTH] for word in words(text) if word not in STOP_WORDS]


def contains_phrase(message_words: list[str], phrase: str) -> bool:
    """Whole-word (or whole-phrase) match, so "person" does not hit "personal"."""
    wanted = words(phrase)
    if not wanted:
        return False
    width = len(wanted)
    return any(
        message_words[i : i + width] == wanted for i in range(len(message_words) - width + 1)
    )
