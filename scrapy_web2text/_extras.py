"""Optional dependencies: imported where they are used, with a message that names the extra to install.

A plain ``pip install scrapy-web2text`` runs ``extract()``, crawls and ``web2text extract``; web archives
(``warc``), shared crawls (``redis``), training (``train``) and the language-model method (``lm``) each need
their extra, and only when they are used.
"""

from __future__ import annotations


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message says which extra brings it."""


def missing_extra(package: str, extra: str, purpose: str) -> MissingExtra:
    """The error to raise (``from`` the ImportError) when ``purpose`` needs ``package`` from ``extra``."""
    return MissingExtra(
        f"{purpose} needs {package}, which is not installed: pip install 'scrapy-web2text[{extra}]'",
        name=package,
    )
