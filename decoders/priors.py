"""Prior scores S(w) for the tilt, one dense tensor per (tokenizer, prior, width, device).

Convention: S(w) is *larger for frequent tokens*, so `logits - λ·S` penalises them. (The source
article says "S = negative log frequency, so frequent words are penalised", which is backwards.)

* ``wordfreq``: S(w) = log f(w) − mean over known tokens, where f is the larger of the English and
  Chinese word frequencies (`wordfreq`) of the token's decoded text. Tokens wordfreq does not know
  (punctuation, byte fragments, special tokens, padding rows of the output layer) get S = 0:
  neither pushed down nor up, so in particular end-of-sequence keeps its probability.
* ``common-tokens``: the article's list ``, . 的 是 在 和 了 the and of to a``; each of their token
  ids gets S = 2, i.e. a fixed penalty of 2·α, as in the article's code.

The vector is sized to the logits' last dimension (often larger than the tokenizer) and built
once; the wordfreq vector is also cached on disk because the lookups take a few seconds.
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from pathlib import Path

import torch

ARTICLE_COMMON_TOKENS = (",", ".", "的", "是", "在", "和", "了", "the", "and", "of", "to", "a")
PRIORS = ("wordfreq", "common-tokens")
LANGUAGES = ("en", "zh")

_memo: dict[tuple, torch.Tensor] = {}
_memo_lock = threading.Lock()
_fingerprints: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _token_texts(tokenizer, width: int) -> list[str]:
    n = min(len(tokenizer), width)
    texts = tokenizer.batch_decode([[i] for i in range(n)], clean_up_tokenization_spaces=False)
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    texts = ["" if i in special else t for i, t in enumerate(texts)]
    return texts + [""] * (width - n)


def _vocab_fingerprint(tokenizer) -> str:
    # Hashing a 49k vocabulary takes ~0.1 s, and every TS-Tilted run asks: once per tokenizer object
    # (again only if its size changed, i.e. tokens were added).
    try:
        size, known = _fingerprints[tokenizer]
        if size == len(tokenizer):
            return known
    except (KeyError, TypeError):
        pass
    vocab = tokenizer.get_vocab()
    blob = "\n".join(f"{k}\t{v}" for k, v in sorted(vocab.items(), key=lambda kv: kv[1]))
    fingerprint = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    try:
        _fingerprints[tokenizer] = (len(tokenizer), fingerprint)
    except TypeError:  # an object that cannot be weakly referenced: hashed every time
        pass
    return fingerprint


def wordfreq_scores(texts: list[str], languages: tuple[str, ...] = LANGUAGES) -> torch.Tensor:
    """Centred log frequency per text; 0 where no language knows the text."""
    from wordfreq import word_frequency  # late: wordfreq loads its word lists; only this prior needs it

    logf = torch.zeros(len(texts), dtype=torch.float64)
    known = torch.zeros(len(texts), dtype=torch.bool)
    for i, text in enumerate(texts):
        word = text.strip()
        # "\ufffd" marks a partial UTF-8 byte sequence: not a word of any language.
        if not word or "\ufffd" in word:
            continue
        freq = max(word_frequency(word, lang) for lang in languages)
        if freq > 0:
            logf[i] = torch.log(torch.tensor(freq, dtype=torch.float64))
            known[i] = True
    if known.any():
        logf[known] -= logf[known].mean()
    return logf.float()


def common_token_scores(tokenizer, width: int) -> torch.Tensor:
    scores = torch.zeros(width, dtype=torch.float32)
    for word in ARTICLE_COMMON_TOKENS:
        for variant in (word, " " + word):
            ids = tokenizer.encode(variant, add_special_tokens=False)
            if len(ids) == 1 and ids[0] < width:  # only words that are one token, as in the article
                scores[ids[0]] = 2.0
    return scores


def build_prior(
    tokenizer, name: str, width: int, device: torch.device | str = "cpu", cache_dir: str | None = None
) -> torch.Tensor:
    """The prior vector S of length `width` on `device`, memoised per process (and on disk)."""
    if name not in PRIORS:
        raise ValueError(f"unknown prior {name!r}; choose one of {', '.join(PRIORS)}")
    fingerprint = _vocab_fingerprint(tokenizer)
    key = (fingerprint, name, width, str(device))
    with _memo_lock:
        if key in _memo:
            return _memo[key]
        if name == "common-tokens":
            vector = common_token_scores(tokenizer, width)
        else:
            path = Path(cache_dir) / "priors" / f"wordfreq-{fingerprint}-{width}.pt" if cache_dir else None
            if path is not None and path.is_file():
                vector = torch.load(path, weights_only=True)
            else:
                vector = wordfreq_scores(_token_texts(tokenizer, width))
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    # A name of this process's own: two processes building the same prior at once (the
                    # app and a CLI, or parallel test workers) must not write into one file.
                    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
                    torch.save(vector, tmp)
                    tmp.replace(path)
        _memo[key] = vector.to(device)
        return _memo[key]
