"""Blocks whose whole text is a phrase of page furniture: an ad's label or a prompt of the page's interface.

A news site labels each ad slot inside its article ("Advertisement", "Anzeige", "Reklama", "広告"), and the model
keeps the label with the text around it, sure of it; a forum or a shop asks its readers
to "Click to expand" or go "Back to top".  Such a block is never main text, in any language, and its words say so
whatever its markup.  Only a block that is the phrase and nothing else goes ("Advertising" as an item of a list of
services stays, as does a sentence about advertisements).
"""

from __future__ import annotations

import re
from bisect import bisect_right

import numpy as np

from ....page import Page
from ....page.elements import first_letter_alternation

#: The labels of ad slots and sponsored content, and the "story continues below" notes beside them, in the
#: languages of the corpora and of the pages users crawl.  Lower case; words are matched across any blanks and
#: punctuation between them.
AD_LABELS = (
    "advertisement", "advertisements", "sponsored", "sponsored content", "sponsored links", "sponsored post",
    "paid content", "paid post", "promoted content", "promoted stories", "ad feedback",
    "story continues below", "story continues below advertisement", "article continues below advertisement",
    "continue reading below", "advertisement continue reading below", "scroll to continue with content",
    "anzeige", "werbung", "gesponsert",  # German
    "publicité", "sponsorisé", "contenu sponsorisé", "la suite après cette publicité", "la suite après la publicité",
    "publicidad", "patrocinado", "contenido patrocinado",  # Spanish
    "pubblicità", "sponsorizzato", "contenuto sponsorizzato",  # Italian
    "publicidade", "conteúdo patrocinado",  # Portuguese
    "advertentie", "gesponsord",  # Dutch
    "reklama", "materiał sponsorowany", "artykuł sponsorowany", "materiał promocyjny",  # Polish, Czech, Slovak
    "inzerce", "hirdetés", "publicitate", "reklam", "annons", "annonce", "reklame", "annonse", "mainos",
    "реклама", "διαφήμιση", "广告", "廣告", "広告", "スポンサーリンク", "광고", "إعلان", "פרסומת",
)  # fmt: skip
#: Prompts of the page's interface that a reader clicks rather than reads.
INTERFACE_PROMPTS = (
    "back to top", "scroll to top", "click to expand", "read full article", "report this comment", "report abuse",
    "nach oben", "zurück nach oben",  # German
    "haut de page", "retour en haut", "retour en haut de page",  # French
    "volver arriba", "ir arriba", "torna su", "naar boven", "terug naar boven",  # Spanish, Italian, Dutch
    "do góry", "powrót do góry", "na górę", "voltar ao topo", "наверх", "till toppen",
)  # fmt: skip
#: The longest block that can be one of the phrases, with blanks and punctuation around it.
MAX_PHRASE_CHARS = 60


def _phrase_pattern(phrases: tuple[str, ...]) -> str:
    """One line that is a phrase and nothing else, in any case, with blanks and punctuation (not a line break)
    around it and between its words."""
    words = first_letter_alternation(phrases).replace(r"\ ", r"[^\w\n]++")
    return rf"^[^\w\n]*+(?:{words})[^\w\n]*+$"


#: Over the short kept blocks joined by line breaks, one scan: a phrase at each line it matches.
_FURNITURE_PHRASE = re.compile(_phrase_pattern(AD_LABELS + INTERFACE_PROMPTS), re.IGNORECASE | re.MULTILINE)


def furniture_phrases(page: Page, labels: np.ndarray) -> np.ndarray:
    """Kept blocks whose whole text is one of :data:`AD_LABELS` or :data:`INTERFACE_PROMPTS`."""
    found = np.zeros(len(page), bool)
    texts = page.texts
    short = [i for i in np.flatnonzero(labels).tolist() if len(texts[i]) <= MAX_PHRASE_CHARS]
    if not short:
        return found
    starts, at = [], 0
    for i in short:
        starts.append(at)
        at += len(texts[i]) + 1
    joined = "\n".join([texts[i] for i in short])  # block texts hold no line break: one line each
    for match in _FURNITURE_PHRASE.finditer(joined):
        found[short[bisect_right(starts, match.start()) - 1]] = True
    return found
