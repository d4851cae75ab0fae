"""The Web2Text networks for inference, in numpy: no torch at run time.

Two stacks of 1-D convolutions over the block sequence (Vogels et al. 2018,
§3.4): the unary network maps block features to p(boilerplate),
p(content) per block; the pairwise network maps edge features to the four
transition probabilities of each pair of neighbours.  Zero padding keeps
the sequence length; ReLU between layers; softmax at the end.

A model is two files side by side: ``NAME.npz`` (plain arrays, loaded with
``allow_pickle=False``) and ``NAME.json`` (configuration, feature names,
training record).  ``scrapy_web2text.research.train`` writes them from torch.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..base import load_weights, weights_files
from ..blas import blas_for_labelling
from .config import PAPER_CONFIG, ModelError, check_config
from .context import CONTEXT_FEATURES, context_features
from .features import EDGE_FEATURES, block_feature_names
from .first_layers import FirstLayers, fold, foldable, made_from, network_logits
from .layers import Layers, conv_stack, log_softmax, pooling_width
from .site_gate import check_gate, template_share

MODEL_FORMAT = "scrapy-web2text-model"
MODEL_FORMAT_VERSION = 1
PACKAGED_MODELS = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL_NAME = "default"


@dataclass
class Web2TextModel:
    """Weights, feature statistics and configuration of a trained model."""

    config: dict
    unary: Layers
    pairwise: Layers
    block_mean: np.ndarray
    block_std: np.ndarray
    edge_mean: np.ndarray
    edge_std: np.ndarray
    metadata: dict = field(default_factory=dict)
    path: str | None = None
    #: The auto-context second pass (``"auto_context": true``); empty otherwise (:mod:`.context`).
    context: Layers = field(default_factory=list)
    #: The model a tuned one was tuned from: it labels the pages the tuned model's site gate does not admit.
    fallback: Web2TextModel | None = None

    @property
    def name(self) -> str:
        return self.metadata.get("name") or self.config.get("name", "unnamed")

    @property
    def threshold(self) -> float:
        """The p(content) a block needs when no threshold is given (the model file's own, else 0.5)."""
        return float(self.config.get("threshold", 0.5))

    def __repr__(self) -> str:
        """One line, not the weights: name, file, feature set and threshold."""
        return (
            f"Web2TextModel(name={self.name!r}, path={self.path!r}, features={self.config.get('features', 'paper')!r}"
            f", threshold={self.threshold:g})"
        )

    @property
    def skipped_rules(self) -> frozenset[str]:
        """Rules after decoding this model's labels are spared (``config.skip_rules``: a tuned model's, where the
        labels it was tuned on keep what a rule drops)."""
        return frozenset(self.config.get("skip_rules", ()))

    @property
    def extended(self) -> bool:
        """Whether the model reads the extended block features (page context)."""
        return self.config.get("features", "paper") == "extended"

    @property
    def block_features(self) -> tuple[str, ...]:
        return block_feature_names(self.extended)

    @property
    def lam(self) -> float:
        return float(self.config.get("lambda", 0.1))

    def for_page(self, texts: Sequence[str]) -> Web2TextModel:
        """The model that labels a page of these block texts: this one, unless its site gate (``config.site_gate``,
        :mod:`.site_gate`) finds too little of the site's template there; then the model it was tuned from."""
        gate = self.config.get("site_gate")
        if gate is None or self.fallback is None:
            return self
        digests = self.__dict__.get("_gate_digests")
        if digests is None:  # not a field, as _folded
            digests = self.__dict__["_gate_digests"] = frozenset(gate["digests"])
        return self if template_share(digests, texts) >= gate["min_share"] else self.fallback.for_page(texts)

    def standardise(self, block_x: np.ndarray, edge_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        block = (block_x - self.block_mean) / self.block_std
        edge = (edge_x - self.edge_mean) / self.edge_std
        return block.astype(np.float32, copy=False), edge.astype(np.float32, copy=False)

    def pairwise_inputs(self, block: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """The pairwise network's input; ``edges+blocks`` adds both neighbours' features."""
        if self.config.get("pairwise_inputs", "edges") == "edges+blocks":
            return np.hstack([edge, block[:-1], block[1:]])
        return edge

    def potentials(self, block_x: np.ndarray, edge_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Log potentials from raw features.

        Returns unary (n, 2) log p(label) with label 0 = boilerplate,
        1 = content, and pairwise (n - 1, 2, 2) log p(previous → next).
        Both first layers run as one product with the standardisation folded in where they allow it
        (:mod:`.first_layers`); :meth:`reference_potentials` computes the same step by step.
        """
        first = self._first_layers()
        if first is None:
            return self.reference_potentials(block_x, edge_x)
        dilations = self.config.get("unary_dilations"), self.config.get("pairwise_dilations")
        with blas_for_labelling():
            unary_logits, pair_logits = network_logits(
                first, block_x, edge_x, self.unary, self.pairwise, dilations, self.config.get("unary_pooling")
            )
        if pair_logits is None:
            return log_softmax(unary_logits), np.zeros((0, 2, 2), np.float32)
        return log_softmax(unary_logits), log_softmax(pair_logits).reshape(-1, 2, 2)

    def reference_potentials(self, block_x: np.ndarray, edge_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`potentials` as the networks are defined: standardise, then each stack layer by layer."""
        with blas_for_labelling():  # products split over threads add up in another order
            return self._reference_potentials(block_x, edge_x)

    def _reference_potentials(self, block_x: np.ndarray, edge_x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        block, edge = self.standardise(block_x, edge_x)
        unary = log_softmax(
            conv_stack(block, self.unary, self.config.get("unary_dilations"), self.config.get("unary_pooling"))
        )
        if self.context:
            summaries = context_features(np.exp(unary[:, 1]), block_x, edge_x)
            unary = log_softmax(
                conv_stack(np.hstack([block, summaries]), self.context, self.config.get("unary_dilations"))
            )
        if len(block) < 2:
            return unary, np.zeros((0, 2, 2), np.float32)
        pairwise = log_softmax(
            conv_stack(self.pairwise_inputs(block, edge), self.pairwise, self.config.get("pairwise_dilations"))
        )
        return unary, pairwise.reshape(-1, 2, 2)

    def _first_layers(self) -> FirstLayers | None:
        """The folded first layers, made on first use and again when a weight or statistic array is replaced;
        ``None`` where the first layers are wider than one block or an auto-context pass reads the standardised
        features."""
        if self.context or not foldable(self.unary, self.pairwise):
            return None
        stats = (self.block_mean, self.block_std), (self.edge_mean, self.edge_std)
        with_blocks = self.config.get("pairwise_inputs", "edges") == "edges+blocks"
        first = self.__dict__.get("_folded")
        if not made_from(first, self.unary, self.pairwise, *stats) or first.with_blocks != with_blocks:
            first = fold(self.unary, self.pairwise, *stats, with_blocks)
            self.__dict__["_folded"] = first  # not a field: equality, repr and dataclasses.replace ignore it
        return first

    # --- persistence -----------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        out = {
            "block_mean": self.block_mean,
            "block_std": self.block_std,
            "edge_mean": self.edge_mean,
            "edge_std": self.edge_std,
        }
        for prefix, layers in (("unary", self.unary), ("pairwise", self.pairwise), ("context", self.context)):
            for index, (weight, bias) in enumerate(layers):
                out[f"{prefix}.{index}.weight"] = weight
                out[f"{prefix}.{index}.bias"] = bias
        if self.fallback is not None:
            out.update({f"fallback.{key}": value for key, value in self.fallback.arrays().items()})
        return out

    def description(self) -> dict:
        """The ``.json`` file's document: format, configuration, feature names, metadata, and the fallback's own."""
        document = {
            "format": MODEL_FORMAT,
            "format_version": MODEL_FORMAT_VERSION,
            "config": self.config,
            "block_features": list(self.block_features),
            "edge_features": list(EDGE_FEATURES),
            **{k: v for k, v in self.metadata.items() if k not in ("format", "format_version", "config", "path")},
        }
        if self.fallback is not None:
            document["fallback"] = self.fallback.description()
        return document

    def save(self, path: str | Path) -> Path:
        """Write ``path.npz`` and ``path.json``; returns the ``.npz`` path."""
        npz, description = weights_files(path)
        npz.parent.mkdir(parents=True, exist_ok=True)
        np.savez(npz, **{k: np.asarray(v, np.float32) for k, v in self.arrays().items()})
        description.write_text(json.dumps(self.description(), indent=2, sort_keys=True) + "\n")
        return npz

    @classmethod
    def load(cls, path: str | Path) -> Web2TextModel:
        """Load ``path.npz`` + ``path.json``; raises :class:`ModelError` on anything off."""
        npz, meta = weights_files(path)
        for file in (npz, meta):
            if not file.is_file():
                raise ModelError(f"model file not found: {file} (a model is NAME.npz plus NAME.json)")
        try:
            metadata = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            # RecursionError: JSON nested deeper than the interpreter's stack, which no model description is.
            raise ModelError(f"{meta}: not a readable JSON model description ({type(error).__name__})") from error
        try:
            with np.load(npz, allow_pickle=False) as archive:
                arrays = {key: archive[key].astype(np.float32) for key in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise ModelError(f"{npz}: not a readable .npz archive ({error})") from error
        model = cls._from_files(metadata, arrays, npz, meta)
        model.check()
        return model

    @classmethod
    def _from_files(cls, metadata, arrays: dict, npz: Path, meta: Path, depth: int = 0) -> Web2TextModel:
        """The model the description and the arrays make; its fallback's from the ``fallback`` document and the
        arrays named ``fallback.*``."""
        if not isinstance(metadata, dict) or metadata.get("format") != MODEL_FORMAT:
            raise ModelError(f"{meta}: not a {MODEL_FORMAT} file")
        if metadata.get("format_version") != MODEL_FORMAT_VERSION:
            raise ModelError(
                f"{meta}: format version {metadata.get('format_version')!r}, expected {MODEL_FORMAT_VERSION}"
            )
        config = metadata.get("config")
        if not isinstance(config, dict):
            raise ModelError(f"{meta}: no configuration")
        expected = block_feature_names(config.get("features", "paper") == "extended")
        if metadata.get("block_features") != list(expected) or metadata.get("edge_features") != list(EDGE_FEATURES):
            raise ModelError(f"{meta}: trained on another feature set than this version of scrapy-web2text computes")
        check_config(config, meta)
        fallback = None
        if "fallback" in metadata:
            if depth >= 8:  # a tuned model's tuned model's ...: no one tunes that often; a crafted file might
                raise ModelError(f"{meta}: more than 8 fallback models nested")
            inner = {
                key.removeprefix("fallback."): array for key, array in arrays.items() if key.startswith("fallback.")
            }
            fallback = cls._from_files(metadata["fallback"], inner, npz, meta, depth + 1)
            fallback.path = None
        metadata = {key: value for key, value in metadata.items() if key != "fallback"}
        try:
            model = cls(
                config=config,
                unary=_layers(arrays, "unary", len(config["unary_filters"])),
                pairwise=_layers(arrays, "pairwise", len(config["pairwise_filters"])),
                block_mean=arrays["block_mean"],
                block_std=arrays["block_std"],
                edge_mean=arrays["edge_mean"],
                edge_std=arrays["edge_std"],
                metadata=metadata,
                path=str(npz),
                context=_layers(arrays, "context", len(config["unary_filters"])) if config.get("auto_context") else [],
                fallback=fallback,
            )
        except KeyError as error:
            raise ModelError(f"{npz}: missing array {error}") from error
        return model

    def check(self) -> None:
        """Raise :class:`ModelError`, naming the field, unless the whole model is usable.

        The configuration's values (see :func:`~.config.check_config`), finite feature statistics with positive standard
        deviations, and layers whose shapes chain and match the configured filters and kernel sizes.
        """
        where = self.path or self.name
        check_config(self.config, where)
        if "site_gate" in self.config:
            check_gate(self.config["site_gate"], where)
            if self.fallback is None:
                raise ModelError(f"{where}: config.site_gate needs the model it falls back to (fallback.* arrays)")
        if self.fallback is not None:
            self.fallback.check()
        n_block, n_edge = len(self.block_features), len(EDGE_FEATURES)
        statistics = {"block_mean": self.block_mean, "block_std": self.block_std}
        statistics.update(edge_mean=self.edge_mean, edge_std=self.edge_std)
        for field_name, values in statistics.items():
            expected = (n_block,) if field_name.startswith("block") else (n_edge,)
            if np.shape(values) != expected:
                raise ModelError(
                    f"{where}: {field_name} has shape {np.shape(values)}, the feature set needs {expected}"
                )
            if not np.all(np.isfinite(values)):
                raise ModelError(f"{where}: {field_name} holds NaN or infinity")
        for field_name in ("block_std", "edge_std"):
            if not np.all(statistics[field_name] > 0):
                raise ModelError(f"{where}: {field_name} must be positive (feature standard deviations)")
        if bool(self.context) != bool(self.config.get("auto_context")):
            raise ModelError(f"{where}: config.auto_context and the context layers disagree")
        n_pair_in = n_edge + (2 * n_block if self.config.get("pairwise_inputs") == "edges+blocks" else 0)
        # The context pass has the unary network's shape, on the block features plus the context summaries.
        networks = [("unary", "unary", self.unary, n_block, 2), ("pairwise", "pairwise", self.pairwise, n_pair_in, 4)]
        if self.context:
            networks.append(("context", "unary", self.context, n_block + len(CONTEXT_FEATURES), 2))
        for name, prefix, layers, n_in, n_out in networks:
            if len(layers) != len(self.config[f"{prefix}_filters"]):
                raise ModelError(
                    f"{where}: {len(layers)} {name} layers, config.{prefix}_filters lists a different number"
                )
            pooling = self.config.get("unary_pooling") if name == "unary" else None
            for index, (weight, bias) in enumerate(layers):
                expected = (self.config[f"{prefix}_filters"][index], n_in, self.config[f"{prefix}_kernels"][index])
                if weight.shape != expected:
                    raise ModelError(f"{where}: {name}.{index}.weight has shape {weight.shape}, expected {expected}")
                if weight.ndim != 3 or weight.shape[1] != n_in or bias.shape != (weight.shape[0],):
                    raise ModelError(f"layer of shape {weight.shape} does not take {n_in} inputs")
                if not (np.all(np.isfinite(weight)) and np.all(np.isfinite(bias))):
                    raise ModelError("weights hold NaN or infinity")
                n_in = weight.shape[0] * (pooling_width(pooling) if pooling and index == pooling["after"] else 1)
            if n_in != n_out:
                raise ModelError(f"network ends in {n_in} outputs, expected {n_out}")

    @classmethod
    def initialised(cls, config: dict | None = None, seed: int = 0) -> Web2TextModel:
        """An untrained model with random weights (tests, training start)."""
        config = dict(config or PAPER_CONFIG)
        rng = np.random.default_rng(seed)
        n_block = len(block_feature_names(config.get("features", "paper") == "extended"))
        n_edge = len(EDGE_FEATURES)
        n_pair_in = n_edge + (2 * n_block if config.get("pairwise_inputs") == "edges+blocks" else 0)

        def stack(n_in, filters, kernels, pooling=None):
            layers = []
            for index, (out, kernel) in enumerate(zip(filters, kernels)):
                bound = 1 / math.sqrt(n_in * kernel)
                layers.append(
                    (
                        rng.uniform(-bound, bound, (out, n_in, kernel)).astype(np.float32),
                        rng.uniform(-bound, bound, out).astype(np.float32),
                    )
                )
                n_in = out * (pooling_width(pooling) if pooling and index == pooling["after"] else 1)
            return layers

        return cls(
            config=config,
            unary=stack(n_block, config["unary_filters"], config["unary_kernels"], config.get("unary_pooling")),
            pairwise=stack(n_pair_in, config["pairwise_filters"], config["pairwise_kernels"]),
            block_mean=np.zeros(n_block, np.float32),
            block_std=np.ones(n_block, np.float32),
            edge_mean=np.zeros(n_edge, np.float32),
            edge_std=np.ones(n_edge, np.float32),
            metadata={"name": f"untrained-{config.get('name', 'model')}"},
            context=stack(n_block + len(CONTEXT_FEATURES), config["unary_filters"], config["unary_kernels"])
            if config.get("auto_context")
            else [],
        )


def _layers(arrays: dict, prefix: str, count: int) -> Layers:
    return [(arrays[f"{prefix}.{i}.weight"], arrays[f"{prefix}.{i}.bias"]) for i in range(count)]


def resolve_model_path(name_or_path: str | Path | None) -> Path:
    """A packaged model's name (``"default"``) or a path, as the ``.npz`` path.

    A bare name (a string without directory or suffix) that a packaged model has is always that model: a
    ``default.npz`` dropped into the working directory never replaces the shipped one.  A model in the working
    directory is named as a path (``./default``, ``default.npz``, or a :class:`~pathlib.Path`).
    """
    if name_or_path is None or str(name_or_path) == "":
        return SHIPPED_MODEL_PATH
    if isinstance(name_or_path, str) and _is_bare_name(name_or_path):
        packaged = PACKAGED_MODELS / f"{name_or_path}.npz"
        if packaged.is_file():
            return packaged
    return weights_files(Path(name_or_path).expanduser())[0]


def _is_bare_name(name: str) -> bool:
    """Whether ``name`` names no path: no directory part, no ``.npz``/``.json`` suffix, not ``.``-led."""
    return Path(name).name == name and not name.startswith((".", "~")) and Path(name).suffix not in (".npz", ".json")


#: The shipped model's file, what :func:`resolve_model_path` gives for ``None``, ``""`` and ``"default"``.
SHIPPED_MODEL_PATH = PACKAGED_MODELS / f"{DEFAULT_MODEL_NAME}.npz"


def load_model(name_or_path: str | Path | None = None) -> Web2TextModel:
    """Load a model once per process (thread-safe) and return the shared copy."""
    if name_or_path is None or name_or_path == DEFAULT_MODEL_NAME:
        # extract()'s default, asked for on every call: resolve_model_path's answer without its path objects.
        return load_weights(Web2TextModel.load, SHIPPED_MODEL_PATH)
    return load_weights(Web2TextModel.load, resolve_model_path(name_or_path))
