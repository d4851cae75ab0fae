"""Re-extract web archives in this process or on a Dask cluster: one task per archive piece, rows written to one
JSON Lines file as each piece ends.

The client plans each input (a task that lists record offsets), submits one
task per piece of at most ``chunk_records`` records, and writes each piece's
rows as soon as it comes back, then notes the piece in the sidecar
``OUT.jsonl.done`` (JSON Lines: input, offset, records, output size).  A
re-run skips the inputs and pieces noted there and first cuts the output back
to the size the last noted piece left, so rows of a piece that was being
written when the run stopped are neither lost nor doubled.

One worker (the default) is this process: the tasks run here one after
another, and no cluster is started (a local cluster's scheduler and a second
process that imports everything again cost seconds of CPU time, a large share
of an archive of a few thousand pages).  More workers are processes of a local
Dask cluster with one thread each (labelling holds the GIL for much of its
time); each loads the model once (:func:`worker_model`).  With ``scheduler``
the run joins a cluster started elsewhere (``dask scheduler`` / ``dask
worker``), whose workers must see the input paths under the same names.
"""

from __future__ import annotations

import functools
import gc
import itertools
import json
import logging
import os
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import extract, load_model
from .._extras import missing_extra
from ..extraction.site_models import site_model
from ..labellers.web2text.languages import load_identifier
from . import DEFAULT_MAX_BYTES
from .warc import HtmlRecord, plan_chunks, read_html

logger = logging.getLogger(__name__)

DEFAULT_CHUNK_RECORDS = 1000


@dataclass(frozen=True)
class Options:
    """What every task needs to know (small and picklable: it travels with each task)."""

    formats: tuple[str, ...] = ("text",)
    model: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    #: Each row also carries the page's ``metadata`` (:meth:`scrapy_web2text.metadata.Metadata.to_dict`).
    metadata: bool = False
    #: ``--site-model``: a model per site (:mod:`scrapy_web2text.extraction.site_models`).
    site_models: tuple[tuple[str, str, str], ...] = ()


@dataclass
class Summary:
    counts: Counter = field(default_factory=Counter)
    inputs_done: int = 0
    inputs_skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        counts = self.counts
        skipped = {key.split("/", 1)[1]: n for key, n in sorted(counts.items()) if key.startswith("skipped/")}
        out = [
            f"inputs: {self.inputs_done} done, {self.inputs_skipped} already done before, {len(self.failed)} failed",
            f"records: {counts['records']}, html: {counts['html']}, rows: {counts['rows']}, errors: {counts['errors']}",
            "skipped: " + (", ".join(f"{reason} {n}" for reason, n in skipped.items()) or "none"),
        ]
        if counts["unreadable"]:
            out.append(
                f"records that could not be read: {counts['unreadable']} (error rows), "
                f"archives damaged or cut short: {counts['truncated']}"
            )
        if counts["bad_charset"]:
            out.append(f"unknown header charsets (the page's own declaration was used): {counts['bad_charset']}")
        out += [f"failed: {path}: {error}" for path, error in self.failed.items()]
        return out


#: The renderings of the main content that rows may carry besides its text: properties of :class:`Extraction`,
#: named here rather than found by looking (its other properties are per-block data, the headline, the metadata).
RENDERINGS = ("html", "markdown")


def available_formats() -> list[str]:
    """``text`` and every other rendering :class:`Extraction` provides (:data:`RENDERINGS`)."""
    return ["text", *RENDERINGS]


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """The formats asked for, deduplicated; one that :class:`Extraction` does not provide fails here, at start-up."""
    wanted = tuple(dict.fromkeys(name.strip() for name in formats if name.strip())) or ("text",)
    available = available_formats()
    unknown = [name for name in wanted if name not in available]
    if unknown:
        raise ValueError(f"unknown output format(s) {', '.join(unknown)}: this version provides {', '.join(available)}")
    return wanted


@functools.cache
def worker_model(name: str | None):
    """The model, loaded once per worker process (``worker_model.cache_info().misses`` counts the loads), with
    the language identifier (the slowest load a record can set off: its first non-English page's).

    What is loaded by then (the model, the modules, the caches' tables) lives as long as the worker: it is moved
    out of the garbage collector's generations (``gc.freeze``), so that the full collections that a page's many
    objects set off do not walk it again for every page."""
    model = load_model(name)
    load_identifier()
    gc.freeze()
    return model


def record_row(record: HtmlRecord, options: Options) -> dict[str, Any]:
    row: dict[str, Any] = {
        "url": record.url,
        "warc_record_id": record.record_id,
        "warc_date": record.date,
        "http_status": record.status,
    }
    if record.error is not None:  # read_html could not read it: counted there, and still one row
        return {**row, "title": None, "main_text": None, "error": record.error}
    try:
        model = worker_model(site_model(options.site_models, record.url) or options.model)
        extraction = extract(record.body, record.url, model=model, encoding=record.charset)
    except Exception as error:  # a page that breaks the chain still gets its row, with the reason
        logger.warning("web2text warc: %s failed: %s: %s", record.url or record.record_id, type(error).__name__, error)
        return {**row, "title": None, "main_text": None, "error": f"{type(error).__name__}: {error}"}
    if extraction.skipped:  # extract() found the body is not HTML after all (binary, another type)
        return {**row, "skipped": extraction.skipped}
    row["title"] = extraction.title
    row["main_text"] = extraction.main_text
    for name in options.formats:
        if name != "text":
            row[f"main_{name}"] = getattr(extraction, name)
    if options.metadata:
        row["metadata"] = extraction.metadata.to_dict()
    return row


def extract_piece(path: str, offset: int, records: int, options: Options) -> tuple[list[dict], Counter]:
    """The task: rows for the HTML responses among ``records`` records from ``offset``, and the counts."""
    counts: Counter = Counter()
    rows = []
    for record in read_html(path, counts, offset, records, options.max_bytes):
        row = record_row(record, options)
        if "skipped" in row:
            counts["html"] -= 1
            counts[f"skipped/{row['skipped']}"] += 1
            continue
        rows.append(row)
    counts["errors"] += sum("error" in row for row in rows)
    counts["rows"] += len(rows)
    return rows, counts


class DoneLog:
    """The sidecar ``OUT.jsonl.done``: finished pieces and inputs, and the output size after each."""

    def __init__(self, output: Path):
        self.path = output.with_name(output.name + ".done")
        self.pieces: set[tuple[str, int, int]] = set()
        self.inputs: set[str] = set()
        self.output_bytes = 0
        if not self.path.exists():
            return
        with self.path.open("r+b") as log:
            good = 0
            for line in log:
                try:
                    if not line.endswith(b"\n"):
                        raise ValueError("no end of line")
                    entry = json.loads(line)
                    output_bytes = int(entry["output_bytes"])
                    piece = None
                    if not entry.get("complete"):
                        piece = (entry["input"], int(entry["offset"]), int(entry["records"]))
                except (ValueError, KeyError, TypeError):
                    # A line cut by a crash (or edited): it and everything after it are unknown, and go.
                    logger.warning("web2text warc: %s ends in an unreadable line; dropping it", self.path)
                    log.truncate(good)
                    break
                good += len(line)
                self.output_bytes = output_bytes
                if piece is None:
                    self.inputs.add(entry["input"])
                else:
                    self.pieces.add(piece)

    def note(self, output_bytes: int, **entry: Any) -> None:
        self.output_bytes = output_bytes
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps({**entry, "output_bytes": output_bytes}) + "\n")


def resolve_inputs(inputs: Sequence[str | os.PathLike]) -> list[str]:
    missing = [str(path) for path in inputs if not Path(path).is_file()]
    if missing:
        raise FileNotFoundError("input file(s) not found: " + ", ".join(missing))
    return list(dict.fromkeys(str(Path(path).resolve()) for path in inputs))


class InProcess:
    """The client of a run in this process: what :func:`_run_pending` asks of a Dask client, each task run when its
    result is first asked for, in the order the tasks were submitted (:class:`InOrder`)."""

    def __init__(self) -> None:
        self._keys = itertools.count()

    def submit(self, function: Callable, *args: Any, pure: bool = False) -> _Task:
        return _Task(next(self._keys), function, args)

    def close(self) -> None:
        pass


class _Task:
    """A task of :class:`InProcess`: a Dask future's ``key``, ``result()`` and ``release()``."""

    def __init__(self, key: int, function: Callable, args: tuple) -> None:
        self.key, self._call, self._value = key, functools.partial(function, *args), None

    def result(self) -> Any:
        if self._call is not None:  # run once; an exception reaches the caller, as a Dask future's does
            self._value, self._call = self._call(), None
        return self._value

    def release(self) -> None:
        self._call = self._value = None


class InOrder:
    """``dask.distributed.as_completed`` for :class:`InProcess` tasks: they come back in the order they were added."""

    def __init__(self, tasks: Sequence[_Task]) -> None:
        self._tasks = deque(tasks)

    def add(self, task: _Task) -> None:
        self._tasks.append(task)

    def __iter__(self) -> Iterator[_Task]:
        while self._tasks:
            yield self._tasks.popleft()


def start_client(workers: int | None, scheduler: str | None):
    """A client of the cluster at ``scheduler``, of a new local one of ``workers`` processes, or for one worker
    (``None`` or 1) this process's :class:`InProcess`; returns (client, cluster we started)."""
    if not scheduler and (workers or 1) == 1:
        return InProcess(), None
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as error:
        raise missing_extra("dask[distributed]", "warc", "running on a Dask cluster") from error

    if not logging.getLogger().isEnabledFor(logging.INFO):
        # Dask logs every worker start and stop at INFO; web2text -v shows them.
        logging.getLogger("distributed").setLevel(logging.WARNING)
    if scheduler:
        return Client(scheduler), None
    cluster = LocalCluster(
        n_workers=workers or 1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # None does not turn it off; a free loopback port clashes with nothing
    )
    return Client(cluster), cluster


def run(
    inputs: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    *,
    client=None,
    workers: int | None = None,
    scheduler: str | None = None,
    options: Options = Options(),
    chunk_records: int = DEFAULT_CHUNK_RECORDS,
    progress: Callable[[int, int], None] | None = None,
    show_progress: bool | None = None,
) -> Summary:
    """Extract every HTML response of ``inputs`` into ``output`` (appended); see the module documentation."""
    paths = resolve_inputs(inputs)
    options = Options(
        check_formats(options.formats), options.model, options.max_bytes, options.metadata, options.site_models
    )
    if chunk_records < 1:
        raise ValueError(f"--chunk-records must be at least 1, not {chunk_records}")
    output = Path(output)
    done = DoneLog(output)
    summary = Summary()
    with output.open("ab") as out:
        if out.tell() > done.output_bytes:
            logger.warning("web2text warc: %s ends in rows of unfinished pieces; cutting them", output)
            out.truncate(done.output_bytes)
        elif out.tell() < done.output_bytes:
            raise ValueError(f"{output} is shorter than {done.path} says it was; move one of them away")
    pending = [path for path in paths if path not in done.inputs]
    summary.inputs_skipped = len(paths) - len(pending)
    if not pending:
        return summary
    own_client, cluster = client is None, None
    if own_client:
        client, cluster = start_client(workers, scheduler)
    try:
        _run_pending(client, pending, output, done, options, chunk_records, summary, progress, show_progress)
    finally:
        if own_client:
            client.close()
        if cluster is not None:
            cluster.close()
    return summary


def _run_pending(client, pending, output, done, options, chunk_records, summary, progress, show_progress) -> None:
    from tqdm import tqdm

    if isinstance(client, InProcess):
        as_completed = InOrder
    else:
        from dask.distributed import as_completed

    show = sys.stderr.isatty() if show_progress is None else show_progress
    bar = tqdm(total=0, unit="rec", unit_scale=True, disable=not show, dynamic_ncols=True)
    plans = [client.submit(plan_chunks, path, chunk_records, pure=False) for path in pending]
    # What each task is for, by task key: ("plan", input) or ("piece", input, offset, records).
    purpose: dict[str, tuple] = {future.key: ("plan", path) for future, path in zip(plans, pending, strict=True)}
    pieces_left: dict[str, int] = {}
    queue = as_completed(plans)
    for future in queue:
        kind, path, *piece = purpose.pop(future.key)
        try:
            if kind == "plan":
                pieces_left[path] = 0
                for offset, records in future.result():
                    bar.total += records
                    if (path, offset, records) in done.pieces:
                        bar.update(records)
                        continue
                    pieces_left[path] += 1
                    task = client.submit(extract_piece, path, offset, records, options, pure=False)
                    purpose[task.key] = ("piece", path, offset, records)
                    queue.add(task)
                bar.refresh()
            else:
                rows, counts = future.result()
                offset, records = piece
                _append_rows(output, rows, done, path, offset, records)
                summary.counts.update(counts)
                pieces_left[path] -= 1
                bar.update(records)
                if progress is not None:
                    progress(bar.n, bar.total)
            if pieces_left.get(path) == 0 and path not in summary.failed:
                done.note(done.output_bytes, input=path, complete=True)
                summary.inputs_done += 1
                del pieces_left[path]
        except Exception as error:  # one broken archive must not stop the others
            summary.failed.setdefault(path, f"{type(error).__name__}: {error}")
            logger.error("web2text warc: %s failed: %s: %s", path, type(error).__name__, error)
        finally:
            future.release()
    bar.close()


def row_line(row: dict[str, Any]) -> bytes:
    """A row as one line of the output (JSON Lines, UTF-8)."""
    return json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n"


def _append_rows(output: Path, rows: list[dict], done: DoneLog, path: str, offset: int, records: int) -> None:
    """Write a piece's rows, make them durable, then note the piece (in that order: see the module doc)."""
    with output.open("ab") as out:
        for row in rows:
            out.write(row_line(row))
        out.flush()
        os.fsync(out.fileno())
        size = out.tell()
    done.note(size, input=path, offset=offset, records=records)
