"""The code blocks of the README and the user guide, read as a reader sees them: what each one is, and what it shows.

Kinds:

- ``python``: a ``python`` block (Markdown fence or ``.. code-block:: python``), or an rst literal block (``::``)
  that parses as Python statements; ``EXPR  # LITERAL`` lines claim a value (``# {'a': 1, ...}`` claims those
  items of a dict);
- ``settings``: a Python block of upper-case assignments only (a ``settings.py`` fragment);
- ``doctest``: ``>>>`` lines, after an optional ``$ scrapy shell PATH`` line that gives them ``response``;
- ``shell``: ``sh``/``bash``/``console`` blocks, and text or literal blocks with ``$`` prompts or starting with a
  command; under a ``$`` command, the lines up to the next prompt are its output (``[...]`` or ``...`` alone: any
  lines; a line ending in `` [...]``: that start);
- ``stats``: a text block of Scrapy stats lines (``'web2text/pages': 21,``), claimed of the document's last crawl;
- ``output``: anything else (a diagram, a table, an output with no command): nothing to run.

A block the reader cannot run as shown is marked just before it, ``.. not-run: REASON`` in rst (a comment, not
rendered) or ``<!-- not-run: REASON -->`` in Markdown.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: The README and the user guide; docs/research/ holds research notes, not instructions.
SOURCES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.rst"))]

_FENCE = re.compile(r"^```(\w*)\s*$")
_CODE_BLOCK = re.compile(r"^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\w*)")
_NOT_RUN_RST = re.compile(r"^\s*\.\. not-run:\s*(.+)$")
_NOT_RUN_MD = re.compile(r"^<!--\s*not-run:\s*(.+?)\s*-->$")
#: The first line of a block of commands without a prompt (``VAR=value`` prefixes allowed); ``web2text NAME:``
#: starts an error message, not a command.
_COMMAND = re.compile(
    r"^(\w+=\S+\s+)*((python3?|pip|scrapy|cd|bash|curl|tox|cibuildwheel|sphinx-build|git|nice)(\s|$)"
    r"|web2text [a-z-]+(\s|$)|\.?\.?/?\.venv/bin/)"
)
_STATS_LINE = re.compile(r"^\s*\{?'[^']+': .+[,}]$")
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}


@dataclass
class Command:
    line: str
    #: The output shown under a ``$`` command; ``None`` where the block shows none.
    output: list[str] | None = None


@dataclass
class Snippet:
    source: str  # "README.md"
    line: int
    kind: str
    text: str
    #: The reason given by a ``not-run:`` marker before the block.
    not_run: str | None = None
    commands: list[Command] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def _markdown_blocks(text: str):
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if not fence:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        marker = _NOT_RUN_MD.match(lines[index - 1].strip()) if index else None
        yield index + 1, fence.group(1), "\n".join(lines[index + 1 : end]), marker and marker.group(1)
        index = end + 1


def _rst_blocks(text: str):
    lines = text.splitlines()
    for index, line in enumerate(lines):
        directive = _CODE_BLOCK.match(line)
        literal = line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if not (directive or literal):
            continue
        indent = len(line) - len(line.lstrip())
        end = index + 1
        while end < len(lines) and re.match(r"^\s+:\w[\w-]*:", lines[end]):  # directive options
            end += 1
        body = []
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            body.append(lines[end])
            end += 1
        text_of_block = textwrap.dedent("\n".join(body)).strip("\n")
        if not text_of_block:
            continue
        marker = None
        previous = index - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        if directive and previous >= 0:
            found = _NOT_RUN_RST.match(lines[previous])
            marker = found and found.group(1)
        yield index + 1, (directive.group(2) if directive else "literal"), text_of_block, marker


def _python_kind(text: str) -> str | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if not tree.body or all(isinstance(node, ast.Expr) for node in tree.body):
        return None  # data (a JSON record) or bare expressions: shown, not a program
    settings = all(
        isinstance(node, (ast.Assign, ast.AugAssign))
        and all(
            isinstance(t, ast.Name) and t.id.isupper()
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        for node in tree.body
    )
    return "settings" if settings else "python"


def _joined(lines: list[str]) -> list[str]:
    """Lines with their ``\\`` continuations joined."""
    out: list[str] = []
    for line in lines:
        if out and out[-1].endswith("\\"):
            out[-1] = out[-1][:-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return out


def shell_commands(text: str, prompt_less_stops_at_blank: bool) -> list[Command]:
    lines = _joined(text.splitlines())
    if any(line.startswith("$ ") for line in lines):
        commands: list[Command] = []
        for line in lines:
            if line.startswith("$ "):
                commands.append(Command(line[2:].strip(), []))
            elif commands:
                commands[-1].output.append(line.rstrip())
        for command in commands:
            while command.output and not command.output[-1].strip():
                command.output.pop()
            if not command.output:
                command.output = None
        return commands
    commands = []
    for line in lines:
        if not line.strip():
            if prompt_less_stops_at_blank and commands:
                break  # what follows is the commands' output (a benchmark's table)
            continue
        if not line.lstrip().startswith("#"):
            commands.append(Command(line.strip()))
    return commands


def classify(language: str, text: str, markdown: bool) -> str:
    language = language.lower()
    if language in ("python", "py", "python3"):
        if text.lstrip().startswith(">>>"):
            return "doctest"
        return _python_kind(text) or "python"
    if language in SHELL_LANGUAGES:
        return "shell"
    if language in ("pycon",) or (">>> " in text and text.lstrip().startswith(("$ scrapy shell", ">>>"))):
        return "doctest"
    lines = [line for line in text.splitlines() if line.strip()]
    if any(line.startswith("$ ") for line in lines):
        return "shell"
    if lines and all(_STATS_LINE.match(line) for line in lines):
        return "stats"
    if language in ("text", "literal", "") and lines and _COMMAND.match(lines[0]):
        return "shell"
    if not markdown and language == "literal":
        return _python_kind(text) or "output"
    return "output"


def collect(sources: list[Path] = SOURCES) -> list[Snippet]:
    snippets = []
    for path in sources:
        markdown = path.suffix == ".md"
        blocks = _markdown_blocks if markdown else _rst_blocks
        for line, language, text, marker in blocks(path.read_text(encoding="utf-8")):
            kind = classify(language, text, markdown)
            snippet = Snippet(path.name, line, kind, text, marker)
            if kind == "shell":
                snippet.commands = shell_commands(text, prompt_less_stops_at_blank=language == "literal")
            snippets.append(snippet)
    return snippets


def top_level_parts(command: str) -> list[str]:
    """``a && b && c`` -> its parts, not splitting inside quotes or parentheses."""
    parts, current, depth, quote, index = [], [], 0, None, 0
    while index < len(command):
        char = command[index]
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif command.startswith("&&", index) and depth == 0:
            parts.append("".join(current).strip())
            current, index = [], index + 2
            continue
        current.append(char)
        index += 1
    parts.append("".join(current).strip())
    return [part for part in parts if part]


def output_mismatch(claimed: list[str], actual: list[str]) -> str | None:
    """``None`` when ``actual`` shows what ``claimed`` shows (elisions as the module docstring says), else where
    they part."""
    claimed = [line.rstrip() for line in claimed]
    actual = [line.rstrip() for line in actual]

    def line_matches(want: str, got: str) -> bool:
        for elision in (" [...]", "..."):
            if want.endswith(elision) and want.strip() not in ("[...]", "..."):
                return got.startswith(want[: -len(elision)].rstrip())
        return want == got

    def match(i: int, j: int) -> bool:
        if i == len(claimed):
            return True  # the rest of the output is not claimed
        if claimed[i].strip() in ("[...]", "..."):
            return any(match(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and line_matches(claimed[i], actual[j]) and match(i + 1, j + 1)

    if match(0, 0):
        return None
    shown = next((line for line in claimed if line.strip() not in ("[...]", "...")), "")
    return "shows:\n" + "\n".join(claimed) + "\ngives:\n" + "\n".join(actual[:40]) + (f"\n(first shown: {shown!r})")


#: Runs a Python snippet (``argv[1]``, named ``argv[2]`` in tracebacks) with the ``__claim__`` of :func:`with_claims`.
PYTHON_RUNNER = textwrap.dedent(
    """
    import ast, sys

    def __claim__(line, value, claimed, partial):
        same = all(k in value and value[k] == v for k, v in claimed.items()) if partial else value == claimed
        if not same:
            raise AssertionError(f"line {line} of the snippet shows {claimed!r}, gives {value!r}")

    source = open(sys.argv[1], encoding="utf-8").read()
    exec(compile(source, sys.argv[2], "exec"), {"__name__": "__main__", "__claim__": __claim__})
    """
)


def with_claims(source: str) -> str:
    """``EXPR  # LITERAL`` lines turned into ``__claim__(line, EXPR, LITERAL, partial)`` calls."""
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        row, column = token.start
        code, claim = lines[row - 1][:column].rstrip(), token.string[1:].strip()
        partial = claim.endswith(", ...}")
        try:
            value = ast.literal_eval(claim[: -len(", ...}")] + "}" if partial else claim)
            statement = ast.parse(code.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if len(statement.body) != 1 or not isinstance(statement.body[0], ast.Expr):
            continue
        indent = code[: len(code) - len(code.lstrip())]
        lines[row - 1] = f"{indent}__claim__({row}, {code.strip()}, {value!r}, {partial})"
    return "\n".join(lines) + "\n"
