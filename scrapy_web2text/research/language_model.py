"""The package's copy of py3langid's model (``models/languages.npz``), written from the installed py3langid's file.

::

    python -m scrapy_web2text.research.language_model      # after upgrading py3langid: writes the copy again

py3langid ships its model as an LZMA-compressed ``.npz``: reading it costs about 0.55 s of CPU in every process that
identifies a language, most of it LZMA.  The copy holds the same arrays, deflated (the ``.npz`` standard compression,
which decompresses several times faster), each array as py3langid uses it: converting one on load would free a large
block that raises glibc's threshold for returning memory, and a crawl's resident memory with it.
:mod:`scrapy_web2text.labellers.web2text.languages` builds py3langid's own ``LanguageIdentifier`` from it, so every
answer is py3langid's (``tests/labellers/test_languages.py`` compares them), and the features do not change when a
py3langid release changes its model: the copy changes only when this is run again.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata as metadata
import io
import json
import lzma
import shutil
from pathlib import Path

import numpy as np

from ..labellers.web2text.languages import LANGUAGE_ARRAYS, LANGUAGE_MODEL, LANGUAGE_MODEL_FORMAT


def source_model() -> Path:
    """The installed py3langid's model file."""
    import py3langid

    return Path(py3langid.__file__).resolve().parent / "data" / "model.npz.xz"


def read_source(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a py3langid model file (no pickle)."""
    with lzma.open(path) as stream, np.load(io.BytesIO(stream.read()), allow_pickle=False) as data:
        missing = set(LANGUAGE_ARRAYS).difference(data.files)  # py3langid 0.4's modelio.save_model
        if missing:
            raise ValueError(f"{path}: not a py3langid 0.4 model (no {', '.join(sorted(missing))})")
        return {name: data[name] for name in LANGUAGE_ARRAYS}


def write_copy(source: Path, output: Path) -> tuple[Path, Path]:
    """``output`` (``.npz``) and its ``.json`` from the py3langid model file ``source``; the licence beside them."""
    arrays = read_source(source)
    output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(output, **arrays)  # the source's arrays under their own names
    info = {
        "format": LANGUAGE_MODEL_FORMAT,
        "source": f"py3langid {metadata.version('py3langid')}, py3langid/data/model.npz.xz",
        "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "licence": "BSD-3-Clause (py3langid; langid.py by Marco Lui and Tim Baldwin): " + _licence_path(output).name,
        "classes": int(arrays["pc"].shape[0]),
        "features": int(arrays["ptc"].shape[0]),
        "states": int(arrays["out_feat"].shape[0]),
    }
    described = output.with_suffix(".json")
    described.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    licence = _py3langid_licence()
    if licence is not None:
        shutil.copyfile(licence, _licence_path(output))
    return output, described


def _licence_path(output: Path) -> Path:
    return output.with_name(output.stem + "-LICENSE.txt")


def _py3langid_licence() -> Path | None:
    for file in metadata.distribution("py3langid").files or ():
        if file.name.upper().startswith("LICENSE"):
            return Path(file.locate())
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="py3langid model file (default: the installed py3langid's)")
    parser.add_argument("-o", "--output", type=Path, default=LANGUAGE_MODEL, help="the .npz to write")
    args = parser.parse_args(argv)
    for path in write_copy(args.source or source_model(), args.output):
        print(path)


if __name__ == "__main__":
    main()
