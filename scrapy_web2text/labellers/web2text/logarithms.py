"""numpy's ``log1p`` of the feature columns that count things, the small whole counts read from a table.

Most of a page's counts (characters and words of a node, its children, depth, the gap between two blocks, their
tree distance) are whole numbers below a few thousand, and ``log1p`` costs some 15 ns a value: the compiled pass
(``_statistics.pyx``) reads those from a table of numpy's own ``log1p``, made once, and gives the others back to
numpy, so every value is the one numpy computes (``tests/page/test_speedups.py``).  Without the compiled modules numpy
takes them all.
"""

from __future__ import annotations

import numpy as np

from ...page.compiled import load_twin, speedups_enabled

#: numpy's log1p of 0, 1, ..., 4095.
LOG1P_TABLE = np.log1p(np.arange(4096.0))


def log1p_columns(out: np.ndarray, columns: np.ndarray) -> None:
    """``out[:, columns] = np.log1p(out[:, columns])``, in place; ``out``: a C-ordered float64 matrix, ``columns``:
    int64 column numbers."""
    if compiled_log1p_counts is None:
        out[:, columns] = np.log1p(out[:, columns])
        return
    pending = compiled_log1p_counts(out, columns, LOG1P_TABLE)
    if len(pending):
        flat = out.reshape(-1)
        flat[pending] = np.log1p(flat[pending])


(_log1p_counts,) = load_twin(f"{__package__}._statistics", "log1p_counts") or (None,)
#: The compiled table look-up, or ``None`` where it is not built or turned off.
compiled_log1p_counts = _log1p_counts if speedups_enabled() else None
