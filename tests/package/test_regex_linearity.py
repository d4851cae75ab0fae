"""No regular expression in the package is super-linear on any input (issue 10).

How it is checked:

1. Every pattern is a module-level constant: a test parses the source and fails on a regex call inside a function
   (``re.search(...)``, ``re.compile(...)`` in a function body), so the enumeration below sees them all.
2. Every module of the package is imported and every ``re.Pattern`` found among its globals (directly, inside a
   dict, list, tuple or set, or inside the tuples of a list) is collected; each must have an entry in
   :data:`WHY_LINEAR`, which says why it cannot backtrack more than a constant amount per character.
3. Each pattern is run (``finditer``, the scan that ``search``, ``sub``, ``split`` and ``findall`` make) on
   adversarial inputs built from the characters the pattern names plus one of each character class: runs of one
   character, a run followed by another character, and alternations of two characters, at 10 n characters; any
   input that takes over :data:`SCREEN_SECONDS` is timed again at n and 10 n, and the growth must stay under
   :data:`GROWTH_LIMIT` (linear: about 10; quadratic: about 100).  A self-test shows that the check catches the
   quadratic patterns this project used before.
"""

from __future__ import annotations

import ast
import functools
import importlib
import math
import pkgutil
import re
import time
from pathlib import Path

import pytest

import scrapy_web2text

PACKAGE = Path(scrapy_web2text.__file__).parent
N = 300
GROWTH_LIMIT = 20.0
SCREEN_SECONDS = 0.002

#: Pattern → why it is linear.  "possessive" means no part gives characters back; "bounded" that an attempt reads
#: a bounded number of characters; "disjoint" that the parts of the text different attempts read do not overlap.
WHY_LINEAR = {
    "page.sniff._FIRST_ELEMENT": "literal start, then at most 64 + 2,000 characters and nothing after that can "
    "fail: bounded per attempt",
    "page.sniff._XHTML_NAMESPACE": "literal start, possessive blanks, then a literal: bounded per attempt",
    "page.walk._BLANK": "one character class, greedy to the end of the run; a match never fails",
    "page.walk._ANCHOR_WORD": r"\w{3,24} bounded, else \w+ which always matches a word",
    "page.elements._KEYWORD_SCAN": "a lookahead over an alternation of literals: bounded per position",
    "page.elements._KEYWORD_PATTERNS": r"\bads?\b: bounded per attempt",
    "page.elements._DIGITS": r"\d+ always matches the whole run",
    "page.decode._META_CHARSET": "every repetition bounded ({0,200}, {0,8}, {1,40}) and only on 4 KiB",
    "page.parse._XML_DECLARATION": r"anchored at \A (one attempt), possessive",
    "page.parse._DOCTYPE_SUBSET": r"matched once at \A; subset parts possessive, comments found by lazy .*?-->",
    "page.parse._ENDS_WITH_CLOSING_TAG": r"literal start; possessive blank runs; searched in the last 1024 characters",
    "page.flatten._TAG_NAME": "possessive name run",
    "page.flatten._ATTRIBUTE_STEP": "possessive throughout; each step consumes what it matches",
    "page.flatten._COMMENT_END": "a literal with one optional character: bounded per attempt",
    "page.flatten._RAW_TEXT_END": "literal end tag and one character: bounded per attempt",
    "page.attributes._CROWDED_TAG": "atomic, possessive, no part crosses a '<': at most 256 tokens per attempt",
    "labellers.boilernet._WORD": r"\w+ always matches the whole run",
    "labellers.boilerpipe._WORD": "one character, bounded",
    "labellers.boilerpipe._N_COMMENTS": "^ (multiline) then a possessive digit run: one attempt per line",
    "labellers.boilerpipe._TITLE_SEPARATORS": "a space run is entered only at its first space and taken whole",
    "labellers.boilerpipe._SPACED_TITLE_SEPARATORS": "as above: lookbehind, possessive space runs",
    "labellers.boilerpipe._LAST_DASHED_PART": "possessive to the next '-': attempts read disjoint parts",
    "labellers.boilerpipe._FIRST_DASHED_PART": r"anchored at \A, possessive",
    "labellers.web2text.counts._WORD": r"\w+ always matches the whole run",
    "labellers.web2text.rules.vocabulary.REVIEW_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.ASIDE_WORDS": (
        "an alternation of literals (some with optional characters): bounded"
    ),
    "labellers.web2text.rules.vocabulary.BYLINE_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.FOOTER_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.SCREEN_READER_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.FURNITURE_PHRASE": (
        "^ (multiline): one attempt per line; possessive runs of non-word characters around and between the words"
        " of an alternation of literals branching on the first letter"
    ),
    "labellers.web2text.lengths.UNSPACED_CHARACTER": "one character class: bounded",
    "labellers.web2text.rules.vocabulary.CAROUSEL_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.TEASER_CARD_WORDS": "literals, branching on the first letter: bounded",
    "labellers.web2text.rules.vocabulary.TAXONOMY_TOKENS": (
        r"literal, fixed lookbehind, [\w-]* to the token's end: disjoint"
    ),
    "labellers.web2text.rules.vocabulary.RAIL_HEADINGS": (
        "an alternation of literals (some with a one-character class): bounded"
    ),
    "page.declared._TYPE_VALUE": "literal start; blank runs and the value bounded ({0,20}, {0,500}, {0,80})",
    "page.declared._QUOTED_NAME": "a quote, then at most 80 non-quotes: bounded per attempt",
    "page.declared._ITEM_TYPE_VALUE": "matched at one position (after the name); every part bounded",
    "page.marks._HIDDEN_STYLE": "literal start, then possessive blank runs: only an attempt at the literal reads on",
    "labellers.web2text.counts._URL": "literal alternatives: bounded per attempt",
    "labellers.web2text.counts._YEAR": "fixed length: bounded per attempt",
    "labellers.web2text.counts._COPYRIGHT": "literal alternatives: bounded per attempt",
    "labellers.web2text.nothing_kept.LEGAL_LINE": "literal alternatives: bounded per attempt",
    "_licences._NAME_END": "one character class: bounded per position",
    "labellers.web2text.counts._EMAIL_DOMAIN": "starts at '@', possessive runs without '@': disjoint",
    "labellers.web2text.counts._EMAIL_LOCAL_PART_AT_END": r"lookbehind + possessive run + \Z: disjoint",
    "extraction.output._TITLE_SEPARATORS": "lookbehind: a blank run is entered only at its start, possessive",
    "extraction.output._BLANKS": r"\s+ always matches the whole run",
    "extraction.markup._BLANK_LINES": r"\n{3,} consumes the run or fails after fewer than 3",
    "extraction.output._NON_WORDS": r"\W+ always matches the whole run",
    "extraction.markup._NOT_XML": "one character class",
    "extraction.markup._URL_IGNORED": "one character class",
    "extraction.markup._MARKDOWN_ACTIVE": (
        r"one character class, or '&' and a possessive \w run that stops at the next '&'"
    ),
    "extraction.markup._BACKTICK_RUNS": "`+ always matches the whole run",
    "extraction.markup._TEXT_CUT": "one character class",
    "extraction.markup._ESCAPE_CUT": "one character class",
    "page.decode._END_OF_HEAD": "literal alternatives: bounded per attempt",
    "page.decode._XML_ENCODING": r"anchored at \A (one attempt), every repetition bounded",
    "page.decode._UTF16LE_START": r"anchored at \A (one attempt), bounded {0,64}",
    "page.decode._UTF16BE_START": r"anchored at \A (one attempt), bounded {0,64}",
    "page.decode._NON_ASCII": "one character class",
    "page.decode._ISO2022JP_ESCAPE": "fixed length: bounded per attempt",
    "page.decode._TAIL_CONTROL": "one character class",
    "research.metrics._TOKEN": r"\w+ always matches the whole run",
    "research.peers._SPACES": r"\s+ always matches the whole run",
    "research.alignment._SPACES": r"\s+ always matches the whole run",
    "metadata.model._CONTROL": "one character class",
    "metadata.model._SPACE": r"\s+ always matches the whole run",
    "metadata.model.URL_SCHEME": "a lookbehind: attempts start only at a run's start, which "
    "a possessive run reads once: disjoint",
    "metadata.model._NOT_IN_URL": "one character class",
    "metadata.dates.ISO_IN_TEXT": "a lookbehind, then fixed-width digit groups with possessive optional parts: "
    "bounded per attempt",
    "metadata.dates._ISO": r"anchored at \A (one attempt), digit counts bounded, blank runs possessive",
    "metadata.written._URL_DATE": "fixed-width groups (at most 4 digits each): bounded per attempt",
    "metadata.written._EIGHT_DIGITS": r"\b, eight digits, \b: bounded per attempt",
    "metadata.written._NUMERIC": "digit groups of at most 4 and single separators: bounded per attempt",
    "metadata.written._WRITTEN": "a word starts an attempt only at its first letter (lookbehind) and is taken whole "
    "(possessive); a day's digits start the other branch; the rest bounded",
    "metadata.written._NOT_A_DATE": r"anchored alternatives (^, no MULTILINE) with possessive runs; the others "
    "literals or bounded classes",
    "metadata.language._TAG": r"anchored at ^ without MULTILINE (one attempt), repetitions bounded",
    "metadata.language._WORDS": r"\w+ always matches the whole run",
    "metadata.embedded._CONTROL_CHARACTERS": "one character class",
    "metadata.embedded._TRAILING_COMMA": "a literal comma, a possessive blank run, a one-character lookahead: "
    "bounded per attempt past the run, and a run is entered only at a comma",
    "metadata.names._WORD": r"\S++ always matches the whole run",
    "metadata.names._ADDRESS": "an alternation of literals: bounded per position",
    "metadata.visible._COMMENTS": "an alternation of literals, one with a two-character lookahead: bounded per "
    "position",
    "metadata.visible._CHROME_WORD": "an alternation of literals, and one alternative anchored at ^ (one attempt) "
    "whose separator run is possessive: bounded per position",
    "metadata.visible._LAYOUT_WORD": "an alternation of literals; the separator run is possessive and followed by a "
    "literal: bounded per position",
    "metadata.names._BY_WORD": r"anchored at ^ (one attempt), blank runs possessive",
    "metadata.placed._DATE_CLASS": "an alternation of literals: bounded per position",
    "metadata.placed._TWO_DIGITS": "two digits: bounded per attempt",
    "metadata.placed._CITED": r"an alternation of literals (one between \b): bounded per position",
    "metadata.placed._REFERENCES": "an alternation of literals: bounded per position",
    "metadata.written._ZONE_NAMES": r"\b, an alternation of literals of at most four letters, \b: bounded per attempt",
    "metadata.written._SCRIPT_DATE": "a literal starts an attempt, then bounded suffixes; the blank runs after a key "
    "are possessive and follow that key alone; the value is at most 40 characters: linear",
    "metadata.names._DASHED": "a blank run is entered only at its first blank (lookbehind) and taken whole",
    "metadata.embedded._WRAPPER_START": r"used with match (one attempt at \A), blank runs possessive",
    "metadata.embedded._WRAPPER_END": "an attempt starts only at '/', ']' or '-'; the blank run after a marker is "
    "possessive and scanned by the attempt at that marker alone: linear",
    "metadata.visible.BYLINE_START": r"anchored at ^ (one attempt), blank runs possessive, (.+) takes the rest",
    "metadata.visible._MARKS": "an alternation of literals: bounded per position",
    "metadata.visible._DATE_MARKS": "an alternation of literals: bounded per position",
    "metadata.visible._DIGIT": "one character",
    "metadata.visible._HANDLE": "anchored at ^ (one attempt); every run possessive, the second ends at the first '_'",
    "metadata.walk._MICRODATA_NAMES": "an alternation of literals after a literal: bounded per position",
    "metadata.visible._SEPARATORS": "one bounded token, then (?s:.*) takes the rest: the first start that fits matches",
    "metadata.visible._JOINERS": "a blank run is entered only at its first blank (lookbehind) and taken whole",
    "show.sanitise._CSS_ESCAPE_OR_COMMENT": "an escape reads at most 9 characters; a comment is possessive and always "
    "matches (its end or the text's): disjoint",
    "show.sanitise._CSS_URL": "literal start, possessive blanks, then at most 4096 characters: bounded per attempt",
    "show.sanitise._CSS_IMAGE_SET": "a literal",
    "show.sanitise._CSS_BACKDROP": "a literal with an optional colon",
    "show.sanitise._CSS_IMPORT": "literal start, then at most 4096 characters: bounded per attempt",
    "show.sanitise._STYLE_TAG_START": "'<' and a lookahead over a possessive blank run: only an attempt at '<' reads",
    "show.view._CLASS_NAMES": "one character class",
    "integration.views._UNSAFE": "one character class, greedy to the end of the run",
}

#: Functions that run a regex at import only, on the package's own constant patterns (never on a page).
IMPORT_TIME_REGEX_FUNCTIONS = {"page/elements.py:_keyword_needles", "page/elements.py:_scan_pattern"}

_REPRESENTATIVES = "aZ0_ \n\t\u00e9@-.<>\"'=/\x00"


#: Old paths of the modules that moved into ``extraction/`` (tests/package/test_imports.py).
_OLD_PATHS = ("blocks", "output", "markup", "responses")


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="scrapy_web2text."):
        if info.name.endswith("__main__"):  # running it would start the command line
            continue
        if info.name.rpartition(".")[2] in _OLD_PATHS and info.name.count(".") == 1:
            continue  # it hands over the moved module, whose patterns are listed under its new path
        names.append(info.name)
    return names


def _assigned_names(module) -> set[str]:
    """Names a module assigns at its top level (an imported pattern is listed under its home module only)."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:  # "a = ..." and "a, b = ..."
            names.update(part.id for part in getattr(target, "elts", [target]) if isinstance(part, ast.Name))
    return names


@functools.cache
def _patterns() -> dict[str, list[re.Pattern]]:
    found: dict[str, list[re.Pattern]] = {}
    for module_name in _modules():
        module = importlib.import_module(module_name)
        if not module.__file__.endswith(".py"):
            continue  # a compiled twin (see test_compiled_twins_use_no_regex)
        for name in _assigned_names(module):
            value = getattr(module, name)
            if isinstance(value, re.Pattern):
                values = [value]
            elif isinstance(value, dict):
                values = list(value.values())
            elif isinstance(value, (list, tuple, set, frozenset)):
                values = list(value)
            else:
                continue
            # One level deeper too: a list of (bit, pattern, ...) tuples.
            items = [part for item in values for part in (item if isinstance(item, tuple) else (item,))]
            patterns = [item for item in items if isinstance(item, re.Pattern)]
            if patterns:
                found[f"{module_name.removeprefix('scrapy_web2text.')}.{name}"] = patterns
    return found


def _alphabet(pattern: re.Pattern) -> list[str]:
    source = pattern.pattern.decode("latin-1") if isinstance(pattern.pattern, bytes) else pattern.pattern
    named = {c for c in source if c.isprintable() and c != "\\"}
    return sorted(named | set(_REPRESENTATIVES))


def _inputs(pattern: re.Pattern, n: int):
    alphabet = _alphabet(pattern)
    for c in alphabet:
        yield lambda m, c=c: c * m
        for d in alphabet:
            if d != c:
                yield lambda m, c=c, d=d: c * m + d
                yield lambda m, c=c, d=d: (c + d) * (m // 2)


def _scan_seconds(pattern: re.Pattern, text) -> float:
    clock = time.thread_time()
    for _ in pattern.finditer(text):
        pass
    return time.thread_time() - clock


def worst_growth(pattern: re.Pattern, n: int = N, stop_above: float = math.inf) -> tuple[float, str]:
    """The largest time(10 n) / time(n) over the adversarial inputs that are not instant, and that input's start
    (the first one over ``stop_above``, if any)."""
    encode = (lambda s: s.encode("utf-8")) if isinstance(pattern.pattern, bytes) else (lambda s: s)
    worst, example = 1.0, ""
    for make in _inputs(pattern, n):
        large = encode(make(10 * n))
        if _scan_seconds(pattern, large) < SCREEN_SECONDS:
            continue
        small = encode(make(n))
        ratio = math.inf
        for repeats in (3, 7):  # a second, longer measurement before a growth counts (a loaded machine)
            t_small = min(_scan_seconds(pattern, small) for _ in range(repeats))
            t_large = min(_scan_seconds(pattern, large) for _ in range(repeats))
            ratio = min(ratio, t_large / max(t_small, 1e-5))
            if ratio < GROWTH_LIMIT:
                break
        if ratio > worst:
            worst, example = ratio, repr(large[:12])
            if worst > stop_above:
                break
    return worst, example


def test_every_regex_is_a_module_constant() -> None:
    calls = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "re"
                    and node.func.attr not in ("escape",)
                    and f"{path.relative_to(PACKAGE)}:{function.name}" not in IMPORT_TIME_REGEX_FUNCTIONS
                ):
                    calls.append(f"{path.relative_to(PACKAGE)}:{node.lineno} re.{node.func.attr}")
    assert not calls, f"regex built inside a function (make it a module constant, listed in WHY_LINEAR): {calls}"


def test_compiled_twins_use_no_regex() -> None:
    # The Cython sources are scanned by hand-written loops; a regex there would escape the checks of this file.
    sources = sorted(PACKAGE.rglob("*.pyx"))
    assert sources
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(?:import re\b|from re import)", text, re.M), path


def test_every_pattern_says_why_it_is_linear() -> None:
    assert set(_patterns()) == set(WHY_LINEAR)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(WHY_LINEAR))
def test_no_regex_is_super_linear(name) -> None:
    patterns = _patterns()[name]
    for pattern in patterns:
        growth, example = worst_growth(pattern)
        assert growth < GROWTH_LIMIT, f"{name} {pattern.pattern!r}: time x{growth:.0f} for 10x input on {example}"


@pytest.mark.parametrize(
    "quadratic",
    [r"[.!?]+(?=\s|$)", r"[\w.+-]+@[\w-]+\.[\w.]+", r"[ ]*[|»-][ ]*"],
    ids=["old-sentence", "old-email", "old-title-separator"],
)
def test_the_check_catches_the_quadratic_patterns_it_replaced(quadratic) -> None:
    growth, _ = worst_growth(re.compile(quadratic), n=200, stop_above=GROWTH_LIMIT)
    assert growth > GROWTH_LIMIT
