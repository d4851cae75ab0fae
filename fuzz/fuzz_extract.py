"""Fuzz ``scrapy_web2text.extract`` for N minutes.

    python fuzz/fuzz_extract.py --minutes 30            # atheris (libFuzzer)
    python fuzz/fuzz_extract.py --minutes 5 --engine random
    python fuzz/fuzz_extract.py --replay fuzz/artifacts/crash-...   # re-run one input

Each input is turned into a page three ways, chosen by its first byte: raw
bytes (with a declared charset or none), text, or HTML built by a small
byte-coded program (open/close tags, text, comments, CDATA, entities,
doctypes, repetition, so deep nesting and huge pages are reachable).  The
page goes through ``extract()``; any exception is a crash, and so is a
broken invariant:

* the result is an ``Extraction``; blocks are non-empty, stripped, NUL-free
  and encodable as UTF-8; probabilities are finite and in [0, 1];
* ``main_text`` is exactly the content blocks joined (one space or newline
  between neighbours);
* for generated HTML, every text token outside skipped elements appears in
  exactly one block, in document order (nothing lost, nothing duplicated).

libFuzzer's ``-timeout`` (60 s: the atheris instrumentation slows the
pure-Python walker several times) turns a slow input into a crash too.
libFuzzer stops at its first crash; this script then restarts it (keeping
the corpus) until the minutes are used up, and lists every artifact.
Engine ``atheris`` needs ``pip install atheris``; ``random`` needs nothing
and mutates the seed corpus in fuzz/seeds/ with a seeded RNG.  Crashes are
written to fuzz/artifacts/ (git-ignored), the corpus grows in fuzz/corpus/.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

try:  # instrument the package so atheris sees Python coverage
    import atheris

    with atheris.instrument_imports(include=["scrapy_web2text"]):
        from scrapy_web2text import Extraction, Web2TextModel, extract
        from scrapy_web2text.page.tags import SKIPPED_TAGS
except ImportError:  # pragma: no cover - the random engine needs no atheris
    atheris = None
    from scrapy_web2text import Extraction, Web2TextModel, extract
    from scrapy_web2text.page.tags import SKIPPED_TAGS

MODEL = Web2TextModel.initialised(seed=0)
_TOKEN = re.compile(r"t[0-9]+x")
_WHITESPACE = re.compile(r"\s+")

TAGS = (
    "div",
    "p",
    "span",
    "a",
    "b",
    "i",
    "li",
    "ul",
    "ol",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "h1",
    "h2",
    "section",
    "article",
    "nav",
    "header",
    "footer",
    "main",
    "aside",
    "form",
    "pre",
    "code",
    "blockquote",
    "em",
    "strong",
    "font",
    "center",
    "dl",
    "dt",
    "dd",
    "select",
    "option",
    "label",
    "button",
    "svg",
    "math",
    "script",
    "style",
    "noscript",
    "template",
    "title",
    "textarea",
    "iframe",
    "frameset",
    "frame",
    "noframes",
    "head",
    "body",
    "html",
    "br",
    "img",
    "hr",
    "input",
    "xmp",
    "plaintext",
    "object",
    "caption",
    "figure",
)
# Elements whose presence takes a generated page off the token oracle's safe
# ground: skipped or raw-text content, foreign content, tables (foster
# parenting), document-level and frameset elements.
OPAQUE = frozenset(SKIPPED_TAGS) | {
    "svg",
    "math",
    "xmp",
    "plaintext",
    "noframes",
    "iframe",
    "textarea",
    "title",
    "frameset",
    "frame",
    "select",
    "option",
    "table",
    "tr",
    "td",
    "th",
    "tbody",
    "caption",
    "head",
    "html",
    "body",
    "template",
    "noscript",
    "object",
}
VOID = frozenset({"br", "img", "hr", "input", "frame"})
ATTRIBUTES = (
    'class="content main"',
    'id="nav"',
    'class="x"',
    'title="a>b"',
    "data-x='<p>'",
    'href="file:///etc/passwd"',
    "",
    "",
)
JUNK = (
    "&amp;",
    "&lt;",
    "&#0;",
    "&#x10FFFF;",
    "&#xD800;",
    "&nbsp;",
    "&bogus;",
    "\x00",
    "\ufffd",
    "\u202e",
    "\u200d",
    "😀",
    "中文",
    "مرحبا",
    "\r\n",
    "\t",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "<",
    ">",
    "</",
    "<?xml ?>",
    "&",
    '<!DOCTYPE html [<!ENTITY x "EXPANDED">]>',
    "<!DOCTYPE html>",
    "\udc80",
    "\x0b",
    "\x1f",
    "\x7f",
    "\u2028",
)
CHARSETS = (None, "utf-8", "latin-1", "cp1252", "shift_jis", "utf-16", "gb18030", "koi8-r", "x-unknown", "utf-7", "")


class Program:
    """Build HTML from bytes; remember which text tokens must survive.

    Byte codes (low 3 bits): 0-1 open a tag, 2 close the innermost, 3-4 a
    unique text token, 5 junk (entities, comments, odd characters, or
    repeating the last pieces); pages stop at 256,000 characters, 6 nest the innermost tag again
    up to 16,320 times, 7 close everything or a stray end tag.  While the
    page uses only plain elements and tokens (``exact``), every token must
    come out in exactly one block, in order.
    """

    def __init__(self, data: bytes):
        self.data, self.position = data, 0
        self.out: list[str] = []
        self.stack: list[str] = []
        self.expected: list[str] = []
        self.token = 0
        self.exact = True
        self.size = 0  # characters so far; pages stay under LIMIT

    LIMIT = 256_000

    def emit(self, piece: str) -> None:
        if self.size + len(piece) > self.LIMIT:
            raise EOFError
        self.size += len(piece)
        self.out.append(piece)

    def byte(self) -> int:
        if self.position >= len(self.data):
            raise EOFError
        self.position += 1
        return self.data[self.position - 1]

    def run(self) -> str:
        try:
            while True:
                self.step(self.byte())
        except EOFError:
            pass
        return "".join(self.out)

    def step(self, op: int) -> None:
        kind = op % 8
        if kind in (0, 1):
            tag = TAGS[self.byte() % len(TAGS)]
            attribute = ATTRIBUTES[op // 8 % len(ATTRIBUTES)]
            self.emit(f"<{tag} {attribute}>" if attribute else f"<{tag}>")
            if tag not in VOID:
                self.stack.append(tag)
            if tag in OPAQUE:
                self.exact = False
        elif kind == 2:
            if self.stack:
                self.emit(f"</{self.stack.pop()}>")
        elif kind in (3, 4):
            word = f"t{self.token}x"
            self.token += 1
            self.emit(f" {word} ")
            self.expected.append(word)
        elif kind == 5:
            self.exact = False
            choice = self.byte()
            if choice < 200:
                self.emit(JUNK[choice % len(JUNK)])
            else:
                width, times = 1 + choice % 4, 1 + self.byte() * 16
                piece = "".join(self.out[-width:])
                if len(piece) * times > self.LIMIT - self.size:
                    raise EOFError
                self.emit(piece * times)
        elif kind == 6:
            if self.stack:
                tag = self.stack[-1]
                times = 1 + self.byte() * 64
                if (len(tag) + 2) * times > self.LIMIT - self.size:
                    raise EOFError
                self.emit(f"<{tag}>" * times)
                self.stack.extend([tag] * times)
        else:
            if self.byte() % 2:
                self.emit("".join(f"</{tag}>" for tag in reversed(self.stack)))
                self.stack.clear()
            else:
                self.emit(f"</{TAGS[self.byte() % len(TAGS)]}>")
                self.exact = False


def check(result, expected_tokens: list[str] | None = None) -> None:
    assert isinstance(result, Extraction), type(result)
    for block in result.blocks:
        assert block.text and block.text == block.text.strip(), repr(block.text[:80])
        assert "\x00" not in block.text
        block.text.encode("utf-8")
        assert math.isfinite(block.probability) and 0.0 <= block.probability <= 1.0, block.probability
    kept = [block.text for block in result.blocks if block.is_content]
    assert _WHITESPACE.sub("", result.main_text) == _WHITESPACE.sub("", "".join(kept))
    if expected_tokens is not None:
        seen = [word for block in result.blocks for word in block.text.split() if _TOKEN.fullmatch(word)]
        assert seen == expected_tokens, (seen[:20], expected_tokens[:20])


def one_input(data: bytes) -> None:
    if not data:
        check(extract(b"", model=MODEL))
        return
    mode, rest = data[0] % 4, data[1:]
    if mode == 0:  # raw bytes, some declared charset
        charset = CHARSETS[rest[0] % len(CHARSETS)] if rest else None
        check(extract(rest[1:], model=MODEL, encoding=charset))
    elif mode == 1:  # text
        check(extract(rest.decode("utf-8", "surrogateescape"), model=MODEL))
    else:  # generated HTML, bytes or str
        program = Program(rest)
        html = program.run()
        result = extract(html.encode("utf-8", "replace") if mode == 3 else html, model=MODEL)
        check(result, program.expected if program.exact and mode == 2 else None)


def seeds() -> list[bytes]:
    seed_dir = HERE / "seeds"
    found = [path.read_bytes() for path in sorted(seed_dir.glob("*")) if path.is_file()] if seed_dir.is_dir() else []
    return found or [b"\x01<p>hello</p>", b"\x02" + bytes(range(256))]


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        choice = rng.random()
        if choice < 0.3 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif choice < 0.5:
            data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
        elif choice < 0.6 and len(data) > 1:
            del data[rng.randrange(len(data))]
        elif choice < 0.8:
            other = rng.choice(pool)
            start = rng.randrange(len(other) + 1)
            data[rng.randrange(len(data) + 1) : 0] = other[start : start + rng.randint(1, 64)]
        elif data:
            start = rng.randrange(len(data))
            piece = data[start : start + rng.randint(1, 16)]
            data[start:start] = piece * rng.randint(1, 200)
    return bytes(data[: 1 << 20])


def run_random(seconds: float, seed: int) -> int:
    rng = random.Random(seed)
    pool = seeds()
    artifacts = HERE / "artifacts"
    deadline = time.monotonic() + seconds
    runs = crashes = 0
    while time.monotonic() < deadline:
        data = mutate(rng, rng.choice(pool), pool)
        runs += 1
        clock = time.monotonic()
        try:
            one_input(data)
        except Exception as error:  # record and go on
            crashes += 1
            artifacts.mkdir(exist_ok=True)
            path = artifacts / f"crash-random-{seed}-{runs}"
            path.write_bytes(data)
            print(f"CRASH {type(error).__name__}: {str(error)[:200]} -> {path}", flush=True)
            continue
        if time.monotonic() - clock > 10:
            artifacts.mkdir(exist_ok=True)
            (artifacts / f"slow-random-{seed}-{runs}").write_bytes(data)
            print(f"SLOW input ({time.monotonic() - clock:.1f} s) saved", flush=True)
        if rng.random() < 0.02:
            pool.append(data)
        if runs % 1000 == 0:
            print(f"#{runs} crashes={crashes} pool={len(pool)}", flush=True)
    print(f"done: {runs} runs, {crashes} crashes in {seconds / 60:.1f} min")
    return 1 if crashes else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz scrapy_web2text.extract")
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--engine", choices=("atheris", "random"), default="atheris" if atheris else "random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--replay", nargs="*", help="run these input files once and report")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args, extra = parser.parse_known_args(argv)
    if args.replay:
        for name in args.replay:
            clock = time.perf_counter()
            one_input(Path(name).read_bytes())
            print(f"{name}: ok in {time.perf_counter() - clock:.2f} s")
        return 0
    seconds = max(1, int(args.minutes * 60))
    if args.engine == "random":
        return run_random(seconds, args.seed)
    if atheris is None:
        parser.error("atheris is not installed: pip install atheris, or use --engine random")
    corpus = HERE / "corpus"
    corpus.mkdir(exist_ok=True)
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)
    if not args.child:
        return supervise(seconds, args.seed, extra)
    libfuzzer = [
        sys.argv[0],
        str(corpus),
        str(HERE / "seeds"),
        f"-max_total_time={seconds}",
        "-timeout=60",
        "-rss_limit_mb=3072",
        "-max_len=65536",
        f"-artifact_prefix={artifacts}{os.sep}",
        f"-seed={args.seed or 1}",
        "-print_final_stats=1",
        "-report_slow_units=60",
        *extra,
    ]
    atheris.Setup(libfuzzer, one_input)
    atheris.Fuzz()
    return 0


def supervise(seconds: int, seed: int, extra: list[str]) -> int:
    """Run libFuzzer in a child until the time is up, restarting after each find."""
    import subprocess

    artifacts = HERE / "artifacts"
    before = set(artifacts.iterdir())
    deadline = time.monotonic() + seconds
    rounds = 0
    while (left := int(deadline - time.monotonic())) > 5:
        rounds += 1
        command = [sys.executable, __file__, "--child", "--minutes", str(left / 60), "--seed", str(seed + rounds)]
        command += extra
        code = subprocess.call(command)
        left = max(0, int(deadline - time.monotonic()))
        print(f"[fuzz] round {rounds} ended with exit code {code}, {left} s left", flush=True)
    found = sorted(set(artifacts.iterdir()) - before)
    findings = [path for path in found if not path.name.startswith("slow-unit-")]
    print(f"[fuzz] {rounds} round(s), {len(findings)} finding(s), {len(found) - len(findings)} slow unit(s) noted")
    for path in found:
        print(f"[fuzz]   {path}  (replay: python {Path(__file__).name} --replay {path})")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
