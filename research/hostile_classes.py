"""Issue 32's classes of hostile input, each through ``extract()`` and every output, against trafilatura.

Every input is generated here (the independent set of the issue stays independent) and runs in its own process
with a time and a memory limit, once for scrapy-web2text (``extract()``, then ``title``, ``block_records("compact")``,
``html`` and ``markdown``, as a crawl or an API user reads them) and once for trafilatura (``extract()`` as text,
then as Markdown and HTML).  An input is handled when the process ends in time and within memory, no output
raises, the planted text is in the main text, and the HTML and Markdown outputs carry no script or data link and
no markup made from page text.  Bytes inputs are given as bytes to both; a transport charset (the HTTP header)
goes to scrapy-web2text's ``content_type=``; trafilatura has no such argument and sees the bytes alone.

    python research/hostile_classes.py [--timeout 60] [--memory-mb 3000] [--only NAME]

prints one row per input and the table by class (the one in docs/robustness.rst).
"""

# ruff: noqa: E501 - one generated input a line reads best as a table

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

WORDS = "Some words of the planted article, which every extractor should keep. "
PLANTED = "planted article"
ARTICLE = f"<h1>The headline</h1><p>{WORDS * 12}</p><p>{WORDS * 10}</p>"
JAPANESE = (
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗い所で泣いていた事は記憶している。"
)
CHINESE = "我们的祖国是花园，花园的花朵真鲜艳。和暖的阳光照耀着我们，每个人脸上都笑开颜。今天天气很好，一起去公园散步。"
KOREAN = "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고 특별한 기술은 필요치 않다."
RUSSIAN = "Съешь же ещё этих мягких французских булок, да выпей чаю. В чащах юга жил бы цитрус? Да, но фальшивый!"
SCRIPT_LINKS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " \x01javascript:alert(1)",
    "jav&#x09;ascript:alert(1)",
    "jav&#10;ascript:alert(1)",
    "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)",
    "javascript&colon;alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
]


@dataclass
class Case:
    klass: str
    name: str
    build: Callable[[], str | bytes]
    planted: str = PLANTED
    content_type: str | None = None
    url: str | None = None
    extra: dict = field(default_factory=dict)


def page(body: str, head: str = "") -> str:
    return f"<html><head>{head}<title>The headline | Site</title></head><body>{body}</body></html>"


def legacy(text: str, head: str = "") -> str:
    return (
        f"<html><head>{head}<title>{text[:8]}</title></head><body><h1>{text[:12]}</h1><p>{text * 8}</p></body></html>"
    )


def links_page() -> str:
    links = "".join(f'<p>Link {n} goes <a href="{href}">elsewhere</a> here.</p>' for n, href in enumerate(SCRIPT_LINKS))
    return page(ARTICLE + links + f"<p>{WORDS * 8}</p>")


def markdown_text_page() -> str:
    text = "&lt;img src=x onerror=alert(1)&gt; [click](javascript:alert(1)) &lt;script&gt;alert(2)&lt;/script&gt; "
    return page(ARTICLE + f"<p>{WORDS * 4}{text}{WORDS * 4}</p>")


CASES = [
    Case("legacy encodings as bytes", "Shift_JIS, <meta>", lambda: legacy(JAPANESE, "<meta charset=shift_jis>").encode("shift_jis"), JAPANESE[:10]),
    Case("legacy encodings as bytes", "Shift_JIS, HTTP charset", lambda: legacy(JAPANESE).encode("shift_jis"), JAPANESE[:10], "text/html; charset=Shift_JIS"),
    Case("legacy encodings as bytes", "Shift_JIS, undeclared", lambda: legacy(JAPANESE).encode("shift_jis"), JAPANESE[:10]),
    Case("legacy encodings as bytes", "GB18030, undeclared", lambda: legacy(CHINESE).encode("gb18030"), CHINESE[:10]),
    Case("legacy encodings as bytes", "EUC-KR, <meta>", lambda: legacy(KOREAN, "<meta charset=euc-kr>").encode("euc-kr"), KOREAN[:10]),
    Case("legacy encodings as bytes", "windows-1251, undeclared", lambda: legacy(RUSSIAN).encode("cp1251"), RUSSIAN[:20]),
    Case("legacy encodings as bytes", "KOI8-R, HTTP charset", lambda: legacy(RUSSIAN).encode("koi8-r"), RUSSIAN[:20], "text/html; charset=koi8-r"),
    Case("legacy encodings as bytes", "<meta> after 4 KB of head", lambda: legacy(RUSSIAN, '<meta name="x" content="y">' * 200 + "<meta charset=windows-1251>").encode("cp1251"), RUSSIAN[:20]),
    Case("legacy encodings as bytes", "UTF-16LE by <?xml?>, no BOM", lambda: ('<?xml version="1.0" encoding="utf-16le"?>' + page(ARTICLE)).encode("utf-16-le")),
    Case("legacy encodings as bytes", "HTML + 2 MB of binary junk", lambda: page(ARTICLE).encode() + random.Random(3).randbytes(2_000_000)),
    Case("nesting depth", "400 <div>", lambda: page("<div>" * 400 + ARTICLE)),
    Case("nesting depth", "5,000 nested tables", lambda: page("<table><tr><td>" * 5000 + ARTICLE)),
    Case("nesting depth", "10,000 nested <b>", lambda: page("<p>" + "<b>" * 10000 + WORDS * 20)),
    Case("nesting depth", "400 nested lists", lambda: page("<ul><li>" * 400 + WORDS * 20)),
    Case("hostile links, Markdown-significant text", "9 script and data links", links_page, url="https://example.com/a/b.html"),
    Case("hostile links, Markdown-significant text", "HTML and links as page text", markdown_text_page),
    Case("many kept pieces under one parent", "100,000 <br> in one paragraph", lambda: page("<p>" + f"{WORDS}<br>" * 100_000 + "</p>")),
    Case("many kept pieces under one parent", "100,000 closed <dialog>", lambda: page(ARTICLE + "<dialog>x</dialog>y" * 100_000)),
    Case("many kept pieces under one parent", "1 MB title, 20,000 headings", lambda: "<title>" + "a" * 1_000_000 + "</title>" + ARTICLE + "<h2>aaaaaaaaaaa</h2>" * 20_000),
    Case("deep pages' block paths", "1,900 deep, 50,000 blocks", lambda: "<div>" * 1900 + f"<p>{WORDS}</p>" + "<p>w</p>" * 50_000),
    Case("deep pages' block paths", "40-char tags 1,500 deep", lambda: ("<" + "x" * 40 + ">") * 1500 + f"<p>{WORDS}</p>" + "<p>w</p>" * 20_000),
    Case("long word runs", "3,000 underscores", lambda: page(ARTICLE + "<p>" + "_" * 3000 + "</p>" + f"<p>{WORDS * 10}</p>")),
    Case("long word runs", "20 KB of x", lambda: page(ARTICLE + "<p>" + "x" * 20_000 + "</p>" + f"<p>{WORDS * 10}</p>")),
    Case("long word runs", "base64 blob", lambda: page(ARTICLE + "<p>" + base64.b64encode(random.Random(1).randbytes(30_000)).decode() + "</p>")),
    Case("long word runs", "50 MB text node", lambda: page(ARTICLE + "<p>" + "x" * 50_000_000 + "</p>" + f"<p>{WORDS * 10}</p>")),
    Case("noembed, SVG, MathML", "<noembed> fallback", lambda: page(ARTICLE + "<noembed><p>Your browser cannot embed this.</p></noembed>"), extra={"absent": "<p>"}),
]  # fmt: skip

_PAGE_MADE_TAG = re.compile(r"<(?:img|script)\b", re.I)


def unsafe(output: str | None, markdown: bool) -> str | None:
    """Why an HTML or Markdown output is unsafe to display (Markdown is rendered first), or ``None``."""
    if not output:
        return None
    if markdown:
        from markdown_it import MarkdownIt

        output = MarkdownIt("commonmark").render(output)
    targets = re.findall(r"""(?:href|src)\s*=\s*["']?([^"'>]*)""", output, re.I)
    if any(
        re.match(r"(?:javascript|vbscript|data):", re.sub(r"[\s\x00-\x1f]+", "", target), re.I) for target in targets
    ):
        return "script or data link"
    if _PAGE_MADE_TAG.search(output):
        return "markup from page text"
    return None


def run_web2text(case: Case, data: str | bytes) -> dict:
    from scrapy_web2text import extract

    result = extract(data, case.url, content_type=case.content_type)
    outputs = {"title": result.title, "records": len(result.block_records("compact"))}
    return {"text": result.main_text, "html": result.html, "markdown": result.markdown, **outputs}


def run_trafilatura(case: Case, data: str | bytes) -> dict:
    import trafilatura

    text = trafilatura.extract(data, url=case.url) or ""
    html = trafilatura.extract(data, url=case.url, output_format="html", include_links=True) or ""
    markdown = trafilatura.extract(data, url=case.url, output_format="markdown", include_links=True) or ""
    return {"text": text, "html": html, "markdown": markdown}


def judge(case: Case, outputs: dict) -> str | None:
    """Why the outputs fail the case, or ``None``."""
    if case.planted not in outputs["text"]:
        return "planted text lost"
    if case.extra.get("absent") and case.extra["absent"] in outputs["text"]:
        return f"{case.extra['absent']!r} in the text"
    return unsafe(outputs["html"], markdown=False) or unsafe(outputs["markdown"], markdown=True)


def one(tool: str, index: int) -> None:
    """The child process: one input through one tool; prints a JSON line."""
    case = CASES[index]
    data = case.build()
    clock = time.perf_counter()
    try:
        outputs = (run_web2text if tool == "web2text" else run_trafilatura)(case, data)
        failure = judge(case, outputs)
    except BaseException as error:  # noqa: BLE001 - the row says what broke, whatever it is
        failure = f"{type(error).__name__}: {str(error)[:60]}"
    seconds = time.perf_counter() - clock
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"failure": failure, "seconds": seconds, "peak_mb": peak}))


def run_child(tool: str, index: int, timeout: float, memory_mb: int) -> dict:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))

    command = [sys.executable, __file__, "--child", tool, str(index)]
    clock = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return {"failure": f"over {timeout:.0f} s", "seconds": time.perf_counter() - clock, "peak_mb": None}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        error = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {
            "failure": f"exit {done.returncode}: {error[:60]}",
            "seconds": time.perf_counter() - clock,
            "peak_mb": None,
        }
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per input and tool (default 60)")
    parser.add_argument("--memory-mb", type=int, default=3000, help="address-space limit per process (default 3000)")
    parser.add_argument("--only", help="run the inputs whose name contains this")
    parser.add_argument("--tools", default="web2text,trafilatura")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        one(args.child[0], int(args.child[1]))
        return
    tools = args.tools.split(",")
    handled: dict[str, Counter] = {tool: Counter() for tool in tools}
    totals: Counter = Counter()
    print(f"{'class':<42} {'input':<32} " + " ".join(f"{tool:>36}" for tool in tools))
    for index, case in enumerate(CASES):
        if args.only and args.only not in case.name:
            continue
        totals[case.klass] += 1
        cells = []
        for tool in tools:
            row = run_child(tool, index, args.timeout, args.memory_mb)
            handled[tool][case.klass] += row["failure"] is None
            verdict = "ok" if row["failure"] is None else row["failure"]
            cells.append(f"{verdict[:26]:>26} {row['seconds']:7.2f} s")
        print(f"{case.klass[:42]:<42} {case.name[:32]:<32} " + " ".join(cells), flush=True)
    print()
    print(f"{'class':<42} {'inputs':>6} " + " ".join(f"{tool:>12}" for tool in tools))
    for klass, count in totals.items():
        print(f"{klass:<42} {count:>6} " + " ".join(f"{handled[tool][klass]:>12}" for tool in tools))
    overall = sum(totals.values())
    print(f"{'all':<42} {overall:>6} " + " ".join(f"{sum(handled[tool].values()):>12}" for tool in tools))


if __name__ == "__main__":
    main()
