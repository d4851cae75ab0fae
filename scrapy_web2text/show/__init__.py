"""``web2text show``: a page as the model labelled it, in one safe, self-contained HTML file."""

from .view import LABELS_FORMAT, build_view, sha256_of, write_view

__all__ = ["LABELS_FORMAT", "build_view", "sha256_of", "write_view"]
