"""Verbose phrases (TS-Tilted-Concise): the list as text, as token sequences, and counted in a text.

A phrase list is one string, phrases separated by commas (, ， 、), semicolons or new lines; the
shipped default is `decoders/data/verbose_phrases.json`. A phrase is penalised through
transformers' `SequenceBiasLogitsProcessor`, which adds a bias to the *last* token of a listed
token sequence when the tokens before it are the last tokens of the context. What that processor
does not decide is which token sequences stand for a phrase; `token_sequences` does:

* variants: a phrase mid-sentence is tokenised with its leading space (" very", not "very"), and
  at a sentence or line start capitalised ("Very", " Very"). The lower-case form without a space is
  left out: as a single token it would also be biased inside other words ("deli|very").
  Chinese has no spaces: the phrase itself, and with a space for Chinese after Latin text.
* where the bias lands: on the last token that starts on a character boundary. With a byte-level
  vocabulary (SmolLM2's), a Chinese character is often two or three byte tokens: "非常" is four
  tokens, and the stock processor would bias the last *byte* of 常 after "非" and the first bytes
  of 常, moving its probability to other characters that share those bytes (市, 布, 师, 希…) or
  to broken UTF-8. Cut after the token that starts 常, the bias moves probability from 常 to the
  other characters that can follow 非 instead. English tokens are whole characters, so an English
  sequence is never cut.
* a phrase that is one character split into byte tokens has no boundary after its first token,
  and biasing that token would hit every character sharing its first byte: it is skipped and
  reported (`skipped`), not approximated.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
import weakref
from dataclasses import dataclass
from importlib import resources
from typing import Any

MAX_PHRASES = 200
MAX_PHRASE_CHARS = 60
MAX_LIST_CHARS = 4000
_SEPARATORS = re.compile(r"[,，、;；\n]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]")


def default_phrases() -> list[str]:
    """The shipped list: English, then Chinese."""
    data = json.loads(resources.files("decoders").joinpath("data/verbose_phrases.json").read_text(encoding="utf-8"))
    return [*data["en"], *data["zh"]]


def parse_phrases(text: str) -> list[str]:
    """The phrases in a list string, whitespace collapsed, duplicates dropped, order kept; `ValueError`
    (a message for the user) for a phrase without letters, with control characters, or too long.

    >>> parse_phrases("very, in  a sense；非常、实际上\\n\\nvery")
    ['very', 'in a sense', '非常', '实际上']
    >>> parse_phrases("  ")
    []
    """
    phrases: list[str] = []
    for piece in _SEPARATORS.split(text):
        phrase = " ".join(piece.split())
        if not phrase:
            continue
        if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") or ch == "\ufffd" for ch in phrase):
            raise ValueError(f"the phrase {phrase!r} has control or unprintable characters")
        if not any(unicodedata.category(ch).startswith("L") for ch in phrase):
            raise ValueError(f"the phrase {phrase!r} has no letters (it would penalise punctuation or numbers)")
        if len(phrase) > MAX_PHRASE_CHARS:
            raise ValueError(
                f"the phrase {phrase[:20]!r}… is {len(phrase)} characters; the limit is {MAX_PHRASE_CHARS}"
            )
        if phrase not in phrases:
            phrases.append(phrase)
    if len(phrases) > MAX_PHRASES:
        raise ValueError(f"{len(phrases)} phrases; the limit is {MAX_PHRASES}")
    return phrases


def normalize_phrases(text: str) -> str:
    """The canonical list string ("a, b, c"; "" for none), what the settings store.

    >>> normalize_phrases("very ,actually\\n")
    'very, actually'
    """
    return ", ".join(parse_phrases(text))


def variants(phrase: str) -> list[str]:
    """The texts a phrase is tokenised as (see the module's docstring).

    >>> variants("in a sense")
    [' In a sense', ' in a sense', 'In a sense']
    >>> variants("非常")
    [' 非常', '非常']
    """
    forms = {phrase, phrase[:1].lower() + phrase[1:], phrase[:1].upper() + phrase[1:]}
    out = {" " + form for form in forms}
    out |= {form for form in forms if not form[:1].islower()}
    return sorted(out)


@dataclass(frozen=True)
class PhraseSequences:
    """Token sequences for `SequenceBiasLogitsProcessor` (each ends at the token the bias lands on)."""

    sequences: tuple[tuple[int, ...], ...] = ()
    skipped: tuple[str, ...] = ()  # phrases with no sequence on this tokenizer


def _bias_point(tokenizer: Any, ids: list[int]) -> int | None:
    """Index of the last token that starts on a character boundary; None if only the first does
    and it is part of a character (biasing it would hit other characters)."""
    for k in range(len(ids) - 1, 0, -1):
        if "\ufffd" not in tokenizer.decode(ids[:k]):
            return k
    if len(ids) > 1 and "\ufffd" in tokenizer.decode(ids[:1]):
        return None
    return 0


def _compile(tokenizer: Any, phrases: tuple[str, ...]) -> PhraseSequences:
    sequences: dict[tuple[int, ...], None] = {}
    skipped = []
    for phrase in phrases:
        found = False
        for text in variants(phrase):
            ids = [int(i) for i in tokenizer.encode(text, add_special_tokens=False)]
            point = _bias_point(tokenizer, ids) if ids else None
            if point is not None:
                found = True
                sequences.setdefault(tuple(ids[: point + 1]))
        if not found:
            skipped.append(phrase)
    return PhraseSequences(tuple(sequences), tuple(skipped))


# ~15 ms for the default list on SmolLM2, and a study's batching plans once per item: kept per
# tokenizer object (dropped if its size changes, i.e. tokens were added), a few lists each.
_memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_memo_lock = threading.Lock()
_MEMO_LISTS = 16


def token_sequences(tokenizer: Any, phrases: list[str]) -> PhraseSequences:
    """Every phrase's variants as token sequences, cut after the token the bias lands on, deduplicated."""
    key = tuple(phrases)
    with _memo_lock:
        try:
            size, lists = _memo[tokenizer]
        except (KeyError, TypeError):
            size, lists = -1, {}
        if size == len(tokenizer) and key in lists:
            return lists[key]
    found = _compile(tokenizer, key)
    with _memo_lock:
        if size != len(tokenizer) or len(lists) >= _MEMO_LISTS:
            lists = {}
        lists[key] = found
        try:
            _memo[tokenizer] = (len(tokenizer), lists)
        except TypeError:  # an object that cannot be weakly referenced: compiled every time
            pass
    return found


def phrase_pattern(phrases: list[str]) -> re.Pattern[str] | None:
    """A regex finding the phrases in text: longest first, case-insensitive, Latin phrases as whole
    words, Chinese ones anywhere (what the benchmark counts; a little broader than what is biased,
    e.g. "(very" counts)."""
    if not phrases:
        return None
    parts = []
    for phrase in sorted(phrases, key=len, reverse=True):
        body = r"\s+".join(re.escape(w) for w in phrase.split())
        if _HAN.search(phrase):
            parts.append(body)
        else:
            parts.append(rf"(?<![^\W_]){body}(?![^\W_])")
    return re.compile("|".join(parts), re.IGNORECASE)


def count_phrases(text: str, phrases: list[str]) -> int:
    """How many listed phrases a text holds (non-overlapping, leftmost-longest).

    >>> count_phrases("Very good, really: it is very, very delivery-ready. 这非常好，从某种程度上说。", ["very", "really",
    ...               "非常", "从某种程度上说", "某种程度上"])
    6
    """
    pattern = phrase_pattern(phrases)
    return 0 if pattern is None else len(pattern.findall(text))
