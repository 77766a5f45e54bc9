"""MAUVE (Pillutla et al. 2021): how close a method's texts are, as a distribution, to human texts.

Both sets of texts are embedded by the scoring model (the loaded model, or the study's scorer): the
**final layer's hidden state (after the final norm) at each text's last token**, in float32, the text
encoded alone without special tokens, at most `MAX_TOKENS` tokens. That is MAUVE's own recipe with
GPT-2 (its `featurize_tokens_from_model`), here with the model the arena already has. The score
itself is the divergence frontier of evaluation/divergence_frontier.py on those features (PCA to 90%
of the variance, k-means into n/10 buckets, the area under the divergence curve with scaling 5; our
own code, equal to GPLv3 `mauve-text`'s `compute_mauve`, which only the tests import): 1 =
indistinguishable, near 0 = disjoint. The human side is the held-out set of the same language
(evaluation/heldout.py).

The interval is a percentile bootstrap: both sets are resampled with replacement `resamples` times and
MAUVE recomputed, so it reflects which texts happened to be drawn (the k-means seed is fixed). With
few texts (a benchmark of 30 outputs per method has 3 buckets) the score is coarse and the interval
wide; that is what so few texts can say.
"""

from __future__ import annotations

import hashlib
import math
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from arena.model.llm import cache_root

from .divergence_frontier import Quantisation, mauve
from .heldout import load_heldout
from .results import MAUVE_MIN_TEXTS

MAX_TOKENS = 256
RESAMPLES = 50
HUMAN_TEXTS = 200
FEATURES = "final-layer hidden state (after the final norm) at the last token, float32"
FEATURE_CACHE_BYTES = 64 * 2**20


@dataclass(frozen=True)
class MauveResult:
    mauve: float
    ci_low: float
    ci_high: float
    n_texts: int
    n_human: int
    resamples: int
    language: str

    def public(self) -> dict[str, Any]:
        return asdict(self)


def text_features(lm: Any, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
    """(len(texts), hidden) float32: each text's last-token final-layer hidden state under `lm`."""
    tokenizer, model = lm.tokenizer, lm.model
    rows = [tokenizer.encode(t, add_special_tokens=False)[:MAX_TOKENS] for t in texts]
    out = np.zeros((len(rows), model.config.get_text_config().hidden_size), dtype=np.float32)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))  # similar lengths share a batch
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = next(model.parameters()).device
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        width = max(1, max(len(rows[i]) for i in chunk))
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for r, i in enumerate(chunk):  # right padding: the last real token is at len - 1
            row = rows[i] or [pad]  # an empty text reads as one padding token
            ids[r, : len(row)] = torch.tensor(row, dtype=torch.long)
            mask[r, : len(row)] = 1
        with torch.inference_mode():
            # logits_to_keep=1: the vocabulary head (a fifth of the small model's work, for every
            # position) is not what is read here; the hidden states are the same without it.
            hidden = model(
                input_ids=ids.to(device), attention_mask=mask.to(device), output_hidden_states=True, logits_to_keep=1
            )
            last = hidden.hidden_states[-1].float()
        ends = mask.sum(dim=1) - 1
        out[chunk] = last[torch.arange(len(chunk)), ends.to(last.device)].cpu().numpy()
    return out


class FeatureCache:
    """Each text's features, computed once per model and precision: the Results tab recomputes MAUVE
    on every view and filter, and the held-out human texts of one size are those of a larger size
    spread more finely (100 of them are among the 200). The model's name and precision are the key,
    as for perplexity (evaluation.perplexity.ScoreCache): the same text in bf16 and fp32, or quantized,
    gives other features. Least recently used rows go past `max_bytes`. Thread-safe.

    With a `folder` (a path, or a function giving it when first needed), each row is also kept there,
    one file per model and text, so that a restarted app (or another process) does not embed the 200
    held-out texts again: a minute of one CPU core with the embedded model. On disk the key also
    holds the feature recipe and a fingerprint of the weights (`weights_digest`), since a name and a
    precision can outlive the weights they named (a local folder retrained in place)."""

    def __init__(self, max_bytes: int = FEATURE_CACHE_BYTES, folder: Path | Callable[[], Path] | None = None) -> None:
        self.max_bytes = max_bytes
        self._folder = folder
        self._rows: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def model_key(lm: Any) -> tuple[str, str]:
        precision = getattr(lm, "precision", None) or str(getattr(lm, "dtype", ""))
        return str(getattr(lm, "name", None) or id(lm)), str(precision)

    def features(self, lm: Any, texts: Sequence[str]) -> np.ndarray:
        """`text_features(lm, texts)`, embedding only the texts not seen before under this model."""
        if not texts:
            return text_features(lm, texts)
        model = self.model_key(lm)
        with self._lock:
            known = {t: self._rows[(*model, t)] for t in texts if (*model, t) in self._rows}
            for text in known:
                self._rows.move_to_end((*model, text))
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        folder = self._model_folder(lm, model) if todo else None
        if folder is not None:
            stored = {t: row for t in todo if (row := _read_row(folder, t)) is not None}
            self._keep(model, stored)
            known.update(stored)
            todo = [t for t in todo if t not in stored]
        if todo:
            fresh = dict(zip(todo, text_features(lm, todo)))
            self._keep(model, fresh)
            known.update(fresh)
            if folder is not None:
                for text, row in fresh.items():
                    _write_row(folder, text, row)
        return np.stack([known[t] for t in texts])

    def _model_folder(self, lm: Any, model: tuple[str, str]) -> Path | None:
        if self._folder is None or getattr(lm, "model", None) is None:
            return None
        root = self._folder() if callable(self._folder) else self._folder
        recipe = f"{model}|{MAX_TOKENS}|{FEATURES}|{weights_digest(lm.model)}"
        return Path(root) / hashlib.sha256(recipe.encode()).hexdigest()[:24]

    def _keep(self, model: tuple[str, str], rows: dict[str, np.ndarray]) -> None:
        with self._lock:
            for text, row in rows.items():
                key = (*model, text)
                if key not in self._rows:
                    self._bytes += row.nbytes
                self._rows[key] = row
                self._rows.move_to_end(key)
            while self._bytes > self.max_bytes and self._rows:
                self._bytes -= self._rows.popitem(last=False)[1].nbytes

    def __len__(self) -> int:
        return len(self._rows)


def weights_digest(model: Any, samples: int = 64) -> str:
    """A fingerprint of a torch model's weights: every parameter's name, shape, dtype and `samples`
    values at even steps through it (milliseconds, where hashing all of them would take a second)."""
    digest = hashlib.sha256()
    with torch.no_grad():
        for name, param in model.named_parameters():
            flat = param.detach().reshape(-1)
            picked = flat[:: max(1, flat.numel() // samples)].float().cpu().numpy()
            digest.update(f"{name}{tuple(param.shape)}{param.dtype}".encode())
            digest.update(picked.tobytes())
    return digest.hexdigest()


def _row_path(folder: Path, text: str) -> Path:
    return folder / f"{hashlib.sha256(text.encode()).hexdigest()}.npy"


def _read_row(folder: Path, text: str) -> np.ndarray | None:
    try:
        return np.load(_row_path(folder, text), allow_pickle=False)
    except (OSError, ValueError):  # not there yet, or a file cut short
        return None


def _write_row(folder: Path, text: str, row: np.ndarray) -> None:
    """Written whole under a temporary name, then renamed: a reader in another process never sees
    half a row. A folder that cannot be written only costs the next start its embedding."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".tmp", delete=False) as handle:
            np.save(handle, row, allow_pickle=False)
        os.replace(handle.name, _row_path(folder, text))
    except OSError:
        return


# the Results tab's MAUVE column and the held-out human texts: this process's rows, and on disk beside the
# models (arena.model.llm.cache_root) for the next start
FEATURE_CACHE = FeatureCache(folder=lambda: cache_root() / "mauve-features")


def spread(items: Sequence[Any], n: int, offset: int = 0) -> list[Any]:
    """`n` items at even steps over `items`, starting `offset` into each step (all of them if fewer)."""
    if n >= len(items):
        return list(items)
    step = len(items) / n
    return [items[min(len(items) - 1, int(i * step) + offset)] for i in range(n)]


def human_features(lm: Any, language: str, n: int = HUMAN_TEXTS) -> np.ndarray:
    """`n` held-out human continuations of `language`, spread evenly over the set (the set runs through
    its sources in order: its first 200 would all be Genesis), embedded once per model (FEATURE_CACHE)."""
    return FEATURE_CACHE.features(lm, [item.continuation for item in spread(load_heldout(language), n)])


def mauve_value(p: np.ndarray, q: np.ndarray, seed: int = 25) -> float:
    """MAUVE of two feature sets: mauve-text's defaults except one k-means start of at most 100
    iterations instead of 5 of 500 (a bootstrap runs it dozens of times; on a few hundred points the
    clusters barely change)."""
    # One BLAS thread: on a busy 2-core machine a thread team spins instead of working.
    with threadpool_limits(1):
        return mauve(p, q, Quantisation(starts=1, max_iter=100, seed=seed))


def mauve_interval(p: np.ndarray, q: np.ndarray, resamples: int = RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval: both sets resampled with replacement, MAUVE recomputed."""
    rng = np.random.default_rng(seed)
    values = [
        mauve_value(p[rng.integers(0, len(p), len(p))], q[rng.integers(0, len(q), len(q))])
        for _ in range(max(0, resamples))
    ]
    if not values:
        return math.nan, math.nan
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def score_texts(
    lm: Any, texts: Sequence[str], language: str, n_human: int = HUMAN_TEXTS, resamples: int = RESAMPLES
) -> MauveResult | None:
    """MAUVE of `texts` against the held-out human texts of `language`, with its bootstrap interval;
    None when there are fewer than 10 non-empty texts (too few for even two buckets)."""
    kept = [t for t in texts if t and t.strip()]
    if len(kept) < MAUVE_MIN_TEXTS:
        return None
    p = FEATURE_CACHE.features(lm, kept)
    q = human_features(lm, language, n_human)
    low, high = mauve_interval(p, q, resamples)
    return MauveResult(mauve_value(p, q), low, high, len(kept), len(q), resamples, language)


def study_mauve(lm: Any, outputs: Any, n_human: int = HUMAN_TEXTS) -> dict[str, MauveResult | None]:
    """MAUVE per method for a study's outputs (a frame with method, text, language): the outputs in the
    study's most common language against held-out human text of that language (English where the
    items name none; the held-out set has English and Chinese only)."""
    if outputs is None or not len(outputs):
        return {}
    languages = outputs["language"].fillna("").astype(str).replace("", "en")
    language = languages.value_counts().index[0]
    if language not in ("en", "zh"):
        return {}
    chosen = outputs[languages == language].drop_duplicates("output_id")
    return {
        str(method): score_texts(lm, list(group["text"].fillna("")), language, n_human=n_human)
        for method, group in chosen.groupby("method", sort=False)
    }
