"""Whether a text is a person's name: what every source's author passes (markup's and the visible byline's).

A byline holds words beside the names: a label ("Veröffentlicht von", "Gespeichert von"), a button ("Follow"), a
weekday, a date after a particle ("le 12 mars", "on June 5").  Markup holds what a template put there: a user's
slug ("robert.stitz"), a handle ("@robert"), an address ("name[at]example.net"); a newsroom's collective byline
("Our Foreign Staff", "News Desk").  None of these is a name; a name's own particles are kept ("Loïc Le Clerc",
"Ana El Sayed", "Ursula von der Leyen").

Nor is the site: an author that is the site's name, its publisher, an ``Organization`` of its structured data or
its host ("Motorsport-Total.com" on motorsport-total.com) is dropped (:func:`organisation_keys`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Month and weekday names (a date's words), in the languages of the byline words.
DATE_WORDS = frozenset(
    """jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july august september
    october november december mon tue wed thu fri sat sun monday tuesday wednesday thursday friday saturday sunday
    januar februar märz mai juni juli oktober dezember janvier février mars avril juin juillet août septembre
    octobre novembre décembre enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre
    diciembre montag dienstag mittwoch donnerstag freitag samstag sonnabend sonntag lundi mardi mercredi jeudi
    vendredi samedi dimanche lunes martes miércoles jueves viernes sábado domingo""".split()
)
#: Words of the labels and buttons around a byline: never part of a name.
LABEL_WORDS = frozenset(
    """updated published posted share comments comment veröffentlicht gespeichert erstellt geschrieben verfasst
    aktualisiert publié publicado escrito follow folgen subscribe abonnieren profile profil more mehr contact
    kontakt email e-mail mail twitter facebook linkedin instagram bio read""".split()
)
#: Words that end a collective byline ("Our Foreign Staff", "News Desk", "Redaktion"): a newsroom, not a person.
COLLECTIVE_WORDS = frozenset(
    """staff desk team newsroom editors reporters correspondents agencies redaktion rédaction redacción
    redazione""".split()
)
#: Lower-case words a name holds between its capitalised ones.
PARTICLES = frozenset("von van de der den da del della di du la le bin al el ter ten y dos das zu".split())
#: Words that end a byline's names when a date follows them ("le 12 mars", "on Monday", "am 3. Mai").
DATE_PARTICLES = frozenset("on am le el".split())

_WORD = re.compile(r"\S++")
#: The byline's own word before a name in markup ("By NATE SILVER", "Written by ...").
_BY_WORD = re.compile(r"^\s*+(?:written\s++)?by\s++(?=\S)", re.I)
_DASHED = re.compile(r"(?<!\s)\s++[-–—|]\s++")
_ADDRESS = re.compile(r"@|\[at\]|\(at\)|\[dot\]|\(dot\)", re.I)


def cut_before_date(names: str) -> str:
    """``names`` up to a date particle that a date follows ("Ann Lee on June 5" -> "Ann Lee"); a particle that a
    name follows ("Loïc Le Clerc") is kept."""
    words = list(_WORD.finditer(names[:500]))
    for index, word in enumerate(words):
        if word.group().lower() not in DATE_PARTICLES:
            continue
        following = words[index + 1].group().strip(",.").lower() if index + 1 < len(words) else ""
        if not following or following[:1].isdigit() or following in DATE_WORDS:
            return names[: word.start()]
    return names


def trimmed(name: str) -> str:
    """``name`` without the labels, buttons, weekdays and particles that end it ("Jane Doe Follow" -> "Jane
    Doe"), without a newsroom after a dash or a bar ("David Jackson - FullStack Editorial Team"), and without the
    "By" before it (``<meta name="byl" content="By NATE SILVER">``)."""
    name = _BY_WORD.sub("", name[:500], count=1)
    parts = _DASHED.split(name)
    if len(parts) > 1 and parts[-1].split() and _plain(parts[-1].split()[-1]) in COLLECTIVE_WORDS:
        name = " - ".join(parts[:-1])
    words = name.split()
    while words and (_plain(words[-1]) in LABEL_WORDS | DATE_WORDS or words[-1].lower() in PARTICLES):
        words.pop()
    return " ".join(words)


def is_name(name: str) -> bool:
    """Whether ``name`` (trimmed) can be a person's name: no label's word, no slug, handle or address (a single
    word in lower case is a user name), no newsroom ("Our Foreign Staff")."""
    words = name.split()
    if not words or any(_plain(word) in LABEL_WORDS for word in words) or _plain(words[-1]) in COLLECTIVE_WORDS:
        return False
    if _ADDRESS.search(name) or name.startswith(("#", "http://", "https://", "/")):
        return False
    return len(words) > 1 or not (_slug(name) or name.islower())  # "mcupdate": a handle, not a name


def organisation_keys(names: Iterable[str | None], host: str | None) -> frozenset[str]:
    """The keys (:func:`name_key`) of a site's names and of its host (whole, and its name before the suffix)."""
    keys = {name_key(name) for name in names if name}
    if host:
        labels = host.removeprefix("www.").split(".")
        keys.update(name_key(part) for part in (".".join(labels), labels[-2] if len(labels) > 1 else ""))
    return frozenset(keys - {""})


def name_key(name: str) -> str:
    """A name folded for comparison: lower case, letters and digits only ("Motorsport-Total.com" ->
    "motorsporttotalcom")."""
    return "".join(char for char in name[:300].casefold() if char.isalnum())


def _plain(word: str) -> str:
    return word.strip(",.:;|").lower()


def _slug(word: str) -> bool:
    """A user name as a URL writes it: "robert.stitz", "edilson.la.rosa", "jdoe_2", "john-smith"."""
    return any(char in "._/" or char.isdigit() for char in word) or word.islower() and "-" in word
