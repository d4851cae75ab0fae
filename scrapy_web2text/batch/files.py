"""``web2text extract`` on many inputs: where they come from, where each one's output goes, and worker processes.

Inputs are files, globs, http(s) URLs or ``-`` (standard input), from the command line, from ``--input-dir`` (every
file below it) and from ``-i`` (a file of URLs or paths, one a line).  Output goes to standard output, to one file
(``-o FILE``) or, one file per input with its name kept (``-o DIR/``, or ``--input-dir``), to a folder.  With
``--workers N`` the pages are extracted in N processes; outputs are written in input order either way.  With no input
named, standard input is read when it is not a terminal (``cat page.html | web2text extract``).

Uses only the public :func:`scrapy_web2text.extract`; never Scrapy.
"""

from __future__ import annotations

import csv
import glob
import http.client
import io
import json
import sys
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import __version__, extract
from ..extraction.site_models import site_model

#: The file suffix of each output form, in folder mode.
SUFFIXES = {"text": ".txt", "markdown": ".md", "html": ".html", "json": ".json", "csv": ".csv"}
#: ``--format csv``'s columns before the metadata fields (the metadata's own ``title`` is left out: the headline is
#: the title column).
CSV_COLUMNS = ("url", "title", "main_text")


class ExtractionFailed(Exception):
    """Labelling one input raised (a method or model that cannot run): the run stops with this message."""


@dataclass(frozen=True)
class Source:
    """One input: ``location`` is a path, a URL or ``-``; ``name`` the output file's name in folder mode."""

    location: str
    name: str


@dataclass(frozen=True)
class Options:
    """What each input's output is: the ``extract`` arguments and the output form."""

    form: str = "text"  # text, markdown, html or csv
    json: bool = False
    blocks: bool = True
    threshold: float | None = None
    model: str | None = None
    method: str = "web2text"
    metadata: bool = False  # JSON rows: a "metadata" object; text: a "field: value" header
    site_models: tuple[tuple[str, str, str], ...] = ()  # --site-model: a model per site (site_models.py)


@dataclass(frozen=True)
class Outcome:
    """One input done: its rendered output, or why it could not be read."""

    source: Source
    output: str | None
    error: str | None = None


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def expand_sources(sources: Iterable[str]) -> Iterator[str]:
    """Paths, with shell-style globs (``pages/**/*.html``) expanded here for shells that do not; URLs and ``-``
    as they are.  A glob that matches nothing is passed on, to be reported as unreadable."""
    for source in sources:
        if source == "-" or is_url(source) or not glob.has_magic(source):
            yield source
            continue
        matches = sorted(glob.glob(source, recursive=True))
        yield from matches or [source]


def name_of(location: str) -> str:
    """The output name of an input given on the command line or in ``-i``: a file's name, a URL's host and path."""
    if location == "-":
        return "stdin"
    if is_url(location):
        stem = location.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0].rstrip("/")
        # ASCII letters, digits, - and _ kept; anything else (dots too: the output's suffix comes after) becomes _.
        safe = "".join(char if char.isascii() and (char.isalnum() or char in "-_") else "_" for char in stem)
        return safe[:200] or "page"
    return Path(location).name or "page"


def shown(location: str) -> str:
    """``location`` as text that encodes as UTF-8: the bytes of a file name that is not UTF-8 (Python keeps them as
    lone surrogates, ``caf\\udce9``) are written ``\\xe9``, as ``ls -b`` writes them."""
    return location.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def safe_name(name: str) -> str:
    """An output file name that is valid UTF-8: each byte of ``name`` that is not becomes ``_`` (``caf_.html``)."""
    return "".join("_" if "\udc80" <= char <= "\udcff" else char for char in name)


def gather_sources(
    arguments: Iterable[str], input_dir: str | None, input_file: str | None, stdin_piped: bool = False
) -> list[Source]:
    """Every input, in order: the arguments (globs expanded), then ``-i``'s lines, then the files below
    ``--input-dir`` (sorted, their relative paths as names); standard input (``-``) when nothing is named and
    ``stdin_piped``.  Raises ``FileNotFoundError`` for a missing ``-i`` file or ``--input-dir``, ``ValueError``
    for a folder given as an input or when there is no input at all."""
    locations = list(expand_sources(arguments))
    if not locations and input_dir is None and input_file is None and stdin_piped:
        locations = ["-"]
    for location in locations:
        if location != "-" and not is_url(location) and Path(location).is_dir():
            raise ValueError(f"{shown(location)} is a folder: give it as --input-dir {shown(location)}")
    if input_file is not None:
        with open(input_file, encoding="utf-8", errors="replace") as lines:
            locations += [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    sources = [Source(location, name_of(location)) for location in locations]
    if input_dir is not None:
        root = Path(input_dir)
        if not root.is_dir():
            raise FileNotFoundError(f"--input-dir {input_dir}: no such directory")
        files = sorted(path for path in root.rglob("*") if path.is_file())
        sources += [Source(str(path), str(path.relative_to(root))) for path in files]
    if not sources:
        raise ValueError("no input: give files, URLs or -, --input-dir DIR or -i FILE, or pipe a page in")
    return sources


def stdin_is_piped() -> bool:
    """Standard input is open and not a terminal (a pipe, a file): what ``web2text extract`` reads by default."""
    try:
        return sys.stdin is not None and not sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or a stand-in without a terminal test
        return False


def read_source(location: str) -> tuple[bytes, str | None, str | None, str | None]:
    """Bytes, declared charset, URL and declared content type of a path, ``-`` or an http(s) URL.

    Raises ``OSError`` (``ValueError`` for a malformed URL) when the input cannot be read."""
    if location == "-":
        if sys.stdin is None:
            raise OSError("standard input is closed")
        return sys.stdin.buffer.read(), None, None, None
    if is_url(location):
        request = urllib.request.Request(location, headers={"User-Agent": f"scrapy-web2text/{__version__}"})
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the user asked for this URL
            headers = response.headers
            return response.read(), headers.get_content_charset(), location, headers.get("Content-Type")
    path = Path(location)
    return path.read_bytes(), None, path.resolve().as_uri(), None


def render(source: Source, data: bytes | None, options: Options) -> Outcome:
    """Read (unless ``data`` is given), extract and render one input; a read failure is an outcome, a labelling
    failure raises :class:`ExtractionFailed`."""
    try:
        body, charset, url, content_type = read_source(source.location) if data is None else (data, None, None, None)
    except (OSError, ValueError, http.client.HTTPException) as error:
        return Outcome(source, None, f"cannot read {shown(source.location)}: {error}")
    try:
        result = extract(
            body,
            url=url,
            threshold=options.threshold,
            model=site_model(options.site_models, url) or options.model,
            method=options.method,
            encoding=charset,
            content_type=content_type,
        )
        if result.skipped and not options.json:  # a JSON row says it itself ("skipped")
            return Outcome(source, None, f"{shown(source.location)}: not an HTML page ({result.skipped}), skipped")
        if options.form == "csv":
            return Outcome(source, csv_row(result, url or shown(source.location), options.metadata))
        if not options.json:
            text = result.main_text if options.form == "text" else getattr(result, options.form)
            return Outcome(source, metadata_header(result.metadata) + "\n" + text if options.metadata else text)
        document = result.to_dict(include_blocks=options.blocks, formats=("metadata",) if options.metadata else ())
        document["title"] = result.title
        if options.form != "text":
            document[f"main_{options.form}"] = getattr(result, options.form)
        document["source"] = shown(source.location)
        return Outcome(source, json.dumps(document, ensure_ascii=False))
    except Exception as error:
        raise ExtractionFailed(f"{shown(source.location)}: {type(error).__name__}: {error}") from None


def metadata_header(metadata) -> str:
    """The text output's header: front matter between ``---`` lines, one ``field: value`` line for each field the
    page has, each value in JSON (a string quoted, a list in brackets), which YAML reads as well."""
    lines = ["---"]
    for name in metadata.found():
        value = getattr(metadata, name)
        lines.append(f"{name}: {json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)}")
    return "\n".join([*lines, "---"]) + "\n"


def csv_columns(metadata: bool) -> list[str]:
    """``--format csv``'s header: url, title, main_text and, with metadata, each metadata field but its title."""
    from ..metadata.model import FIELDS

    return [*CSV_COLUMNS, *(name for name in FIELDS if name != "title")] if metadata else list(CSV_COLUMNS)


def csv_line(values: Iterable) -> str:
    """One CSV record without its line end (a cell's own line breaks are quoted)."""
    stream = io.StringIO()
    csv.writer(stream, lineterminator="").writerow(values)
    return stream.getvalue()


def csv_row(result, url: str, metadata: bool) -> str:
    """One input's ``--format csv`` record: lists as JSON, missing values empty."""
    values: list = [url, result.title or "", result.main_text]
    if metadata:
        found = result.metadata
        for name in csv_columns(True)[len(CSV_COLUMNS) :]:
            value = getattr(found, name)
            values.append(json.dumps(list(value), ensure_ascii=False) if isinstance(value, tuple) else value or "")
    return csv_line(values)


def _render_job(job: tuple[Source, bytes | None, Options]) -> Outcome:
    return render(*job)


def outcomes(sources: list[Source], options: Options, workers: int = 1) -> Iterator[Outcome]:
    """Each input's :class:`Outcome`, in input order; ``workers`` > 1 extracts in that many processes.

    Standard input is read here, once, whatever the worker count (a worker process has none)."""
    jobs = [(source, read_stdin_once(source), options) for source in sources]
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_render_job, jobs)
        return
    import multiprocessing

    # spawn, not fork: a forked copy of a process with BLAS threads can deadlock, and spawn is what macOS and
    # Windows do anyway.
    executor: Executor = ProcessPoolExecutor(min(workers, len(jobs)), mp_context=multiprocessing.get_context("spawn"))
    try:
        yield from executor.map(_render_job, jobs)
    finally:
        # A closed output pipe or an interrupt stops the run here: queued pages are dropped, not waited for.
        executor.shutdown(wait=False, cancel_futures=True)


def read_stdin_once(source: Source) -> bytes | None:
    if source.location != "-":
        return None
    if sys.stdin is None:
        return None  # read_source reports it, as for any input that cannot be read
    return sys.stdin.buffer.read()


class Writer:
    """Where outputs go: standard output or one file (each input's output a paragraph, headed by its name when
    there are several), or a folder (a file per input, its name kept and its suffix the form's)."""

    def __init__(
        self, output: str | None, folder: bool, suffix: str, several: bool, headers: bool, preamble: str | None = None
    ):
        self.folder = Path(output) if folder and output else None
        self.suffix = suffix
        self.headers = several and headers
        #: A first line for the output and for each file of a folder (a CSV header).
        self.preamble = preamble
        self._names: set[str] = set()
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.stream = None
        elif output:
            self.stream = open(output, "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        else:
            if sys.stdout is None:
                raise OSError("standard output is closed: give -o FILE or -o DIR/")
            self.stream = sys.stdout
        if self.stream is not None and preamble is not None:
            self.stream.write(preamble + "\n")

    def write(self, outcome: Outcome) -> Path | None:
        """Write one output; returns the file written in folder mode."""
        assert outcome.output is not None
        if self.folder is None:
            if self.headers:
                self.stream.write(f"==> {shown(outcome.source.location)} <==\n")
            self.stream.write(outcome.output + "\n")
            return None
        target = self._target(outcome.source)
        target.parent.mkdir(parents=True, exist_ok=True)
        preamble = "" if self.preamble is None else self.preamble + "\n"
        target.write_text(preamble + outcome.output + "\n", encoding="utf-8")
        return target

    def _target(self, source: Source) -> Path:
        """The input's name, made valid UTF-8, with the form's suffix; ``-2``, ``-3``... when two inputs would share a
        name."""
        base = safe_name(source.name)
        name = str(Path(base).with_suffix(self.suffix)) if Path(base).suffix else base + self.suffix
        stem, counter = name[: -len(self.suffix)], 2
        while name in self._names:
            name, counter = f"{stem}-{counter}{self.suffix}", counter + 1
        self._names.add(name)
        target = self.folder / name
        if (
            not is_url(source.location)
            and source.location != "-"
            and target.resolve() == Path(source.location).resolve()
        ):
            raise ExtractionFailed(f"{target} is the input {shown(source.location)}: give another -o folder")
        return target

    def close(self) -> None:
        if self.stream is not None and self.stream is not sys.stdout:
            self.stream.close()
        elif self.stream is sys.stdout:
            self.stream.flush()


def run(
    sources: list[Source],
    options: Options,
    writer: Writer,
    workers: int = 1,
    report: Callable[[str], None] = print,
    progress: Callable[[Iterable, int], Iterable] | None = None,
) -> int:
    """Extract every input and write its output; returns 0, or 1 if some input could not be read or was not HTML
    (each reported in one line; the others are still done)."""
    status = 0
    pending = outcomes(sources, options, workers)
    shown: Iterable[Outcome] = progress(pending, len(sources)) if progress and len(sources) > 1 else pending
    try:
        for outcome in shown:
            if outcome.error is not None:
                report(outcome.error)
                status = 1
                continue
            writer.write(outcome)
    finally:
        pending.close()  # stops the worker processes at once when the loop ends early
    return status
