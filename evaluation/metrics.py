"""Diversity and degeneration metrics over a set of texts (Holtzman et al. 2020, Table 1).

All metrics see text through `words`: lower-cased words and punctuation marks, and each CJK
character as one token, so English and Chinese are measured alike and without a model.

* distinct-n: distinct n-grams / all n-grams, pooled over the texts (Li et al. 2016).
* repetition %: share of texts that contain a *loop*: some phrase of k >= 2 tokens appearing 3 or
  more times back to back (t[i:i+k] == t[i+k:i+2k] == t[i+2k:i+3k]). Back to back, so that
  ordinary reuse such as "of the" three times in a long text does not count; Holtzman et al.
  count loops at the end of a generation, which this includes.
* Self-BLEU4: mean over texts of sentence BLEU-4 (sacrebleu, exponential smoothing) of each text
  against all the others as references, on a 0-1 scale; higher = less diverse.
* Zipf coefficient s: least-squares slope of log frequency on log rank, f(r) ~ r^-s, over the
  `top` most frequent tokens (Holtzman et al. use the top 5000).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]", re.UNICODE)


def words(text: str) -> list[str]:
    """Tokens for the metrics. Example: words("Hi, 你好 world") == ["hi", ",", "你", "好", "world"]."""
    return _TOKEN.findall(_CJK.sub(r" \g<0> ", text.lower()))


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def distinct_n(texts: Iterable[str], n: int) -> float:
    """Distinct n-grams over all n-grams, pooled over `texts`; NaN when there is no n-gram."""
    if n < 1:
        raise ValueError("n must be at least 1")
    grams: list[tuple[str, ...]] = []
    for text in texts:
        grams += ngrams(words(text), n)
    return len(set(grams)) / len(grams) if grams else math.nan


def has_loop(tokens: Sequence[str], min_len: int = 2, min_repeats: int = 3) -> bool:
    """True if some phrase of >= `min_len` tokens occurs `min_repeats` times back to back."""
    vocab: dict[str, int] = {}
    ids = np.array([vocab.setdefault(t, len(vocab)) for t in tokens], dtype=np.int64)
    n = len(ids)
    for k in range(min_len, n // min_repeats + 1):
        # same[i] is True where token i equals token i+k; a loop of period k and r copies is a
        # run of (r-1)*k consecutive True values.
        same = (ids[:-k] == ids[k:]).astype(np.int64)
        need = (min_repeats - 1) * k
        if len(same) >= need:
            run = np.concatenate(([0], np.cumsum(same)))
            if (run[need:] - run[:-need] == need).any():  # a window of `need` matches
                return True
    return False


def repetition_rate(texts: Sequence[str], min_len: int = 2, min_repeats: int = 3) -> float:
    """Share (0-1) of texts with a loop (see `has_loop`); NaN for no texts."""
    if not texts:
        return math.nan
    return sum(has_loop(words(t), min_len, min_repeats) for t in texts) / len(texts)


def self_bleu(texts: Sequence[str], max_texts: int | None = 200, seed: int = 0, tokenize: str | None = None) -> float:
    """Self-BLEU4 on a 0-1 scale (see the module docstring). With more than `max_texts` texts, a
    seeded random sample of that many is used as hypotheses (all texts stay references)."""
    from sacrebleu.metrics import BLEU  # late: 0.2 CPU s that an app start does not need

    texts = [t for t in texts if t.strip()]
    if len(texts) < 2:
        return math.nan
    if tokenize is None:
        tokenize = "zh" if any(_CJK.search(t) for t in texts) else "13a"
    bleu = BLEU(tokenize=tokenize, effective_order=True)
    order = list(range(len(texts)))
    if max_texts is not None and len(order) > max_texts:
        order = sorted(random.Random(seed).sample(order, max_texts))
    scores = [bleu.sentence_score(texts[i], texts[:i] + texts[i + 1 :]).score for i in order]
    return float(np.mean(scores)) / 100.0


def zipf_coefficient(texts: Iterable[str] | Counter, top: int | None = 5000) -> float:
    """Zipf exponent s of f(r) ~ r^-s by least squares on (log r, log f); NaN under 2 types."""
    counts = texts if isinstance(texts, Counter) else Counter(w for t in texts for w in words(t))
    freqs = np.array(sorted(counts.values(), reverse=True)[: top or None], dtype=float)
    if len(freqs) < 2:
        return math.nan
    ranks = np.arange(1, len(freqs) + 1, dtype=float)
    slope, _ = np.polyfit(np.log(ranks), np.log(freqs), 1)
    return float(-slope)


def text_metrics(texts: Sequence[str], self_bleu_max: int | None = 200) -> dict[str, float]:
    """All diversity and degeneration metrics of one set of texts (one method, or human text)."""
    texts = list(texts)
    return {
        "n_texts": len(texts),
        "distinct_1": distinct_n(texts, 1),
        "distinct_2": distinct_n(texts, 2),
        "repetition_pct": 100.0 * repetition_rate(texts),
        "self_bleu4": self_bleu(texts, max_texts=self_bleu_max),
        "zipf": zipf_coefficient(texts),
    }
