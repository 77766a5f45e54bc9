"""Reserved prompts: a prompt of a study still being rated is not run for the public.

Run in Compare or the trace tab, a study's prompt comes back with each method's name above its
output, and beam search (every method, given the seed) writes the very text the raters see. So every
run that serves the app first goes through `admit` (arena.runs.runner calls it where Compare's and the
trace's runs start, before any engine sees them), which refuses a prompt that is, contains or nearly
is a prompt of any study not yet published (`check_not_reserved`). Quick ratings from Compare are not
reserved: their outputs were shown by name already.

The check is on what the model will see, then on what a person would call the same prompt:

1. **The model's input.** The token ids after cleaning and templating (the chat template, unless
   raw) equal those of a study item: the same input gives the same outputs, whatever was typed.
2. **Disguises.** Both texts are folded (`fold`): NFKC (full width and compatibility forms), case
   folding, the UTS #39 skeleton (NFD, so a diacritic comes off its letter, and every look-alike
   character to its prototype: dotless ı, small capitals, Cherokee, Cyrillic, Greek, mathematical
   letters), then only letters and digits kept. Control, format and zero-width characters, other invisible fillers, spaces of
   every kind and punctuation all drop out, and so does a chat template typed out by hand around a
   raw prompt (what is left of it is a few words around the prompt). Refused when the folded request
   equals a folded study prompt; when it contains one (study prompts of `MIN_CONTAINED` letters or
   more: a prompt inside a longer raw text or a typed template); or when it covers `NEAR` of a study
   prompt's letter trigrams (study prompts of `MIN_NEAR` letters or more: a letter changed, a word
   dropped or added, the end cut off); or, for the shorter study prompts (`MIN_CONTAINED` to
   `MIN_NEAR` letters), when it is one letter away (dropped, added or changed).

The refusal never names the study. The index of reserved prompts (folded keys, trigram sets, token
ids) is built once per store and tokenizer and kept until the set of reserved items changes, which
one aggregate query per run notices (`Store.reserved_fingerprint`).
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
import weakref
from collections import Counter
from collections.abc import Callable
from importlib.resources import files
from itertools import chain
from typing import Any

from arena.inputs.prompts import clean_prompt
from arena.inputs.text import folded
from common.errors import UserError

from ..store import Store

RESERVED = "this prompt is reserved for a blind rating study that is still running; try another prompt"
MIN_CONTAINED = 8  # letters: a shorter study prompt is refused only when it is the whole prompt
MIN_NEAR = 20  # letters: below this, near-copies are too easy to make by accident
NEAR = 0.8  # share of a study prompt's letter trigrams that a near-copy covers
NO_LIMIT = 10**9

# Letters that render as a Latin letter (after case folding): Cyrillic, Greek. Kept after the skeleton
# below: UTS #39 maps some of them to each other rather than to Latin.
LOOK_ALIKES = str.maketrans("авеёкмнорстухіїјѕԁԛԝһӏαβεηικνορτυχω", "abeekmhopctyxiijsdqwhlabenikvoptuxw")
# What `fold` drops: everything but letters and digits (\W, and "_": combining marks too, so a letter
# with a diacritic keeps its base letter after NFD), and the letters (category Lo) that show as
# nothing, the Hangul fillers.
NOT_LETTERS = re.compile("[\\W_\u115f\u1160\u3164\uffa0]+")


def _prototypes() -> dict[int, str]:
    """UTS #39's confusables: each look-alike code point to its prototype (dotless ı to i, small
    capital ᴜ to u, Cherokee Ꭺ to A...), from arena/data/confusables.json (scripts/build_confusables.py)."""
    data = json.loads(files("arena").joinpath("data/confusables.json").read_text(encoding="utf-8"))
    return {ord(k): v for k, v in data["prototypes"].items()}


PROTOTYPES = _prototypes()


def skeleton(text: str) -> str:
    """UTS #39's skeleton of case-folded `text`: NFD, each character to its prototype, NFD again.

    >>> skeleton("ｐrıncıpᴜs") == skeleton("principus")
    True
    """
    once = unicodedata.normalize("NFD", text).translate(PROTOTYPES)
    return unicodedata.normalize("NFD", once).casefold()


def fold(text: str) -> str:
    """Letters and digits of `text` after NFKC, case folding, the look-alike skeleton and mapping.

    >>> fold("Ｅxplain  the\u200b basic\u0001 principles, please!") == fold("explain the basic principles please")
    True
    >>> fold("Explain the bäsic prıncıples") == fold("Explain the basic principles")
    True
    """
    return NOT_LETTERS.sub("", skeleton(folded(text)).translate(LOOK_ALIKES))


def near_one_edit(key: str) -> set[str]:
    """`key` and every one-letter deletion of it: two keys within one edit (a letter dropped, added or
    changed) share one of these, which is how the shorter prompts' index finds near-copies."""
    return {key} | {key[:i] + key[i + 1 :] for i in range(len(key))}


def trigrams(key: str) -> frozenset[str]:
    return frozenset(key[i : i + 3] for i in range(len(key) - 2))


def model_input(tokenizer: Any, prompt: str, raw: bool) -> str:
    """The text the model is given for a prompt, as `arena.inputs.prompts.encode_prompt` makes it before
    tokenizing: cleaned, and through the chat template unless raw. The same text is the same input."""
    text = clean_prompt(prompt)
    if raw or tokenizer is None or not getattr(tokenizer, "chat_template", None):
        return text
    return str(
        tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True, tokenize=False)
    )


class ReservedIndex:
    """The folded keys (with an inverted index of their letter trigrams) and, given a tokenizer, the
    model inputs of the reserved prompts."""

    def __init__(self, items: list[tuple[str, bool]], tokenizer: Any = None):
        self.keys: list[str] = []
        self.sizes: list[int] = []  # trigrams per key
        self.short: set[str] = set()  # keys too short to be looked for inside a longer prompt
        self.postings: dict[str, list[int]] = {}
        self.edits: set[str] = set()  # one-deletion forms of the keys of MIN_CONTAINED..MIN_NEAR letters
        self.inputs: set[str] = set()
        runnable = []
        for prompt, raw in items:
            try:
                runnable.append((clean_prompt(prompt), raw))
            except UserError:  # a stored prompt that cannot be run cannot be replayed either
                continue
        for key in dict.fromkeys(fold(p) for p, _ in runnable):
            if not key:
                continue
            if len(key) < MIN_CONTAINED:
                self.short.add(key)
                continue
            if len(key) < MIN_NEAR:
                self.edits |= near_one_edit(key)
            grams = trigrams(key)
            for gram in grams:
                self.postings.setdefault(gram, []).append(len(self.keys))
            self.keys.append(key)
            self.sizes.append(len(grams))
        if tokenizer is not None:
            self.inputs = {model_input(tokenizer, p, raw) for p, raw in runnable}

    def matches(self, prompt: str, model_text: str | None = None) -> bool:
        if model_text is not None and model_text in self.inputs:
            return True
        key = fold(prompt)
        if not key:
            return False
        if key in self.short:
            return True
        if MIN_CONTAINED - 1 <= len(key) <= MIN_NEAR and not near_one_edit(key).isdisjoint(self.edits):
            return True  # a prompt of under 20 letters with one letter dropped, added or changed
        hits = Counter(chain.from_iterable(self.postings.get(gram, ()) for gram in trigrams(key)))
        for k, n in hits.items():
            size = self.sizes[k]
            if n == size and self.keys[k] in key:  # equal, or contained
                return True
            if len(self.keys[k]) >= MIN_NEAR and n >= NEAR * size:
                return True
        return False


_indexes: weakref.WeakKeyDictionary[Store, tuple[tuple[int, int, int], int, ReservedIndex]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def index_for(store: Store, tokenizer: Any = None) -> ReservedIndex:
    """The store's index of reserved prompts, rebuilt only when the reserved items changed."""
    fingerprint = store.reserved_fingerprint()
    with _lock:
        cached = _indexes.get(store)
        if cached is not None and cached[0] == fingerprint and cached[1] == id(tokenizer):
            return cached[2]
    built = ReservedIndex(store.reserved_items(), tokenizer)
    with _lock:
        _indexes[store] = (fingerprint, id(tokenizer), built)
    return built


def check_not_reserved(store: Store, prompt: object, raw: bool = False, tokenizer: Any = None) -> None:
    """UserError(RESERVED) if `prompt` (run raw or through the chat template) is reserved in `store`:
    a prompt of a study not yet published, disguised or not. The message does not name the study."""
    if not isinstance(prompt, str) or not prompt.strip():
        return
    text = clean_prompt(prompt)
    model_text = model_input(tokenizer, text, bool(raw)) if tokenizer is not None else None
    if index_for(store, tokenizer).matches(text, model_text):
        raise UserError(RESERVED)


# ---- the runs that serve the app -------------------------------------------------------------------

_store_of: Callable[[], Store] | None = None


def protect(store_of: Callable[[], Store] | None) -> None:
    """From now on every public run (`admit`) is checked against this store's studies; app.py calls
    it once, with the app's store. None turns the check off (a process that serves nobody)."""
    global _store_of
    _store_of = store_of


def admit(lm: Any, prompt: object, raw: bool = False) -> None:
    """Where a public run starts (Compare, the trace): refuse a reserved prompt before anything runs."""
    if _store_of is not None:
        check_not_reserved(_store_of(), prompt, raw, getattr(lm, "tokenizer", None))
