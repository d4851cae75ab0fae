"""The ``web2text show`` sub-command: read a page (file, URL or stdin), write its view."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

#: A fetched page larger than this is refused (the view holds the page, its blocks' text and their records).
MAX_PAGE_BYTES = 20_000_000


class SourceError(Exception):
    """A page that could not be read or fetched; the message says why."""


def add_show_command(commands) -> None:
    """Register ``show`` on the ``web2text`` sub-command parser (nothing heavy is imported here)."""
    show = commands.add_parser(
        "show",
        help="write one self-contained HTML view of a page with each block outlined by its label",
        description="The page as its author laid it out (sanitised, offline), each block outlined by its label and "
        "shaded by p(content); click a block to flip its label, 'Save labels' to download them for "
        "'web2text train --labels'.",
    )
    show.add_argument("source", metavar="PAGE.html|URL|-", help="an HTML file, an http(s) URL, or - for stdin")
    show.add_argument("-o", "--output", required=True, metavar="VIEW.html", help="the view to write")
    show.add_argument("--model", default=None, help="packaged model name or path to NAME.npz (default: shipped)")
    show.add_argument("--threshold", type=float, default=None, help="probability a block needs to be kept")
    show.add_argument(
        "--save-page", metavar="PAGE.html", default=None, help="also write the page's bytes (what the labels name)"
    )
    show.set_defaults(handler=run_show_command)


def read_source(source: str, timeout: float = 30.0) -> tuple[bytes, str | None, str | None, str | None]:
    """Bytes, declared charset, URL and declared content type of a file path, ``-`` or an http(s) URL."""
    if source == "-":
        return sys.stdin.buffer.read(MAX_PAGE_BYTES + 1), None, None, None
    if source.startswith(("http://", "https://")):
        request = urllib.request.Request(source, headers={"User-Agent": "scrapy-web2text (web2text show)"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's URL
                data = response.read(MAX_PAGE_BYTES + 1)
                headers = response.headers
                return data, headers.get_content_charset(), response.geturl(), headers.get("Content-Type")
        except urllib.error.HTTPError as error:
            raise SourceError(f"cannot fetch {source}: HTTP {error.code} {error.reason}") from error
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise SourceError(f"cannot fetch {source}: {reason}") from error
    if "://" in source:
        raise SourceError(f"cannot read {source}: only http(s) URLs are fetched")
    try:
        path = Path(source)
        return path.read_bytes(), None, path.resolve().as_uri(), None
    except OSError as error:
        raise SourceError(f"cannot read {source}: {error.strerror or error}") from error


def run_show_command(args) -> int:
    from .view import build_view, write_view

    try:
        data, charset, url, content_type = read_source(args.source)
    except SourceError as error:
        print(f"web2text show: {error}", file=sys.stderr)
        return 1
    if len(data) > MAX_PAGE_BYTES:
        print(f"web2text show: {args.source} is over {MAX_PAGE_BYTES} bytes; not shown", file=sys.stderr)
        return 1
    named_by = args.save_page or (args.source if args.source != "-" and "://" not in args.source else None)
    view = build_view(
        data,
        url,
        model=args.model,
        threshold=args.threshold,
        encoding=charset,
        content_type=content_type,
        name=Path(named_by).stem if named_by else None,
    )
    if args.save_page:
        Path(args.save_page).parent.mkdir(parents=True, exist_ok=True)
        Path(args.save_page).write_bytes(data)
    written = write_view(args.output, view)
    print(f"web2text show: view written to {written}", file=sys.stderr)
    return 0
