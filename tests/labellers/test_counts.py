"""The vectorised per-block counts equal the plain per-block regular expressions and str methods they replace."""

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_web2text.labellers.web2text.counts import STOPWORDS, block_counts
from scrapy_web2text.labellers.web2text.languages import ENGLISH_STOPWORD_SHARE, page_stopwords

_REFERENCE = {
    "sentences": re.compile(r"[.!?]+(?=\s|$)"),
    "digits": re.compile(r"\d"),
    "email": re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+"),
    "url": re.compile(r"https?://|www\.\w"),
    "year": re.compile(r"\b(?:19|20)\d\d\b"),
    "copyright": re.compile(r"©|\(c\)|copyright|all rights reserved", re.I),
}
_PRESENCE = {"email", "url", "year", "copyright"}


def reference_stopwords(texts: list[str]) -> frozenset[str]:
    """The paper's English list, unless under a fifth of the page's words are English stop-words and the
    language identifier names another language with a list (languages.py)."""
    words = [word.lower() for text in texts for word in re.findall(r"\w+", text)]
    if words and sum(word in STOPWORDS for word in words) < ENGLISH_STOPWORD_SHARE * len(words):
        return page_stopwords(texts) or STOPWORDS
    return STOPWORDS


def reference_counts(texts: list[str]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    stopwords = reference_stopwords(texts)

    def put(name, value):
        out.setdefault(name, []).append(float(value))

    for text in texts:
        words = re.findall(r"\w+", text)
        put("chars", len(text))
        put("words", len(words))
        put("word_length", sum(map(len, words)))
        put("capital_words", sum(word[0].isupper() for word in words))
        put("stopwords", sum(word.lower() in stopwords for word in words))
        put("punctuation", sum(c in ",.?;:!" for c in text))
        put("dashes", sum(c in "-_/\\" for c in text))
        put("periods", text.count("."))
        put("separators", sum(c in "|•·»«›‹>" for c in text))
        put("ends_punct", bool(re.search(r"[.!?:;,\"'”’)]$", text)))
        put("ends_question", text.endswith("?"))
        for name, pattern in _REFERENCE.items():
            hits = len(pattern.findall(text))
            put(name, hits > 0 if name in _PRESENCE else hits)
    return out


def assert_counts_match(texts):
    counts = block_counts(texts, np.zeros(len(texts), bool))
    for name, expected in reference_counts(texts).items():
        assert counts[name].tolist() == expected, name


def test_tricky_texts():
    assert_counts_match(
        [
            "The end. Is it? Yes!! (C) 2019 ACME, All Rights Reserved",
            "Mail me: a.b+c@example.co.uk or see https://x.org and www.y.com.",
            "İt ıs ſo: THE Kelvin K sign and İ do not make stop words; ñandú 1999 ١٩٩٩ 2020",
            "CÓPYRIGHT ©2021 — copyright…?",
            "_under_score a_b THE_END x",
            "...",
            "—",
            "Ab",
        ]
    )


def test_url_texts():
    assert_counts_match(
        ["www.www.x", "see www.", "www.-x", "www._x", "wwww.ünï", "http://www.x", "xhttps://", "http:/ www", "w.w"]
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("wWhtps:/._- xé1")), min_size=1, max_size=30).filter(
            lambda text: text.strip() == text and "  " not in text and text
        ),
        min_size=1,
        max_size=8,
    )
)
def test_generated_url_texts(texts):
    assert_counts_match(texts)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from(
                list("aAbTtHhEe iIsSkKcCoOpPyY(©)@.!?,:;/-_|>»'\"”0129 ") + ["İ", "ı", "ſ", "K", "٣"]
            ),
            min_size=1,
            max_size=40,
        ).filter(lambda text: text.strip() == text and "  " not in text and text),
        min_size=1,
        max_size=8,
    )
)
def test_generated_texts(texts):
    assert_counts_match(texts)


def test_a_non_english_page_counts_its_languages_stopwords():
    # German prose: under a fifth of its words are English stop-words, so the identifier picks German's list.
    texts = ["Der Hund läuft über die Straße und wir sehen ihn nicht mehr, weil es dunkel ist."] * 3
    texts += ["Über uns", "Kontakt"]
    stopwords = page_stopwords(texts)
    assert stopwords is not None and "über" in stopwords
    assert_counts_match(texts)
    assert block_counts(texts, np.zeros(len(texts), bool))["stopwords"][0] >= 8
