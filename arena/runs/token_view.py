"""Compare's token view as data: what a recorded run (decoders/recording.py) did at one step.

`candidates_frame` is one row per candidate token, one probability column per stage ("model",
then each processor in the order it ran), and which token was drawn; `beams_frame` is the running
beams of beam search at a step, best first. `shift` says, for a word such as "the" or "的", how much
probability the processors moved away from it over a run. The UI (ui/compare/token_view.py) only draws them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from common.errors import UserError

CHOSEN = "drawn"


def token_text(tokenizer: Any, token_id: int) -> str:
    """A token as it reads, spaces and newlines visible: "␣the", "↵". A token that holds part of a
    character (a Chinese character is three bytes, often split) shows what it holds, its whole
    characters and its bytes ("<0xE4><0xB8>"), never the "�" that decoding it alone gives."""
    text = tokenizer.decode([int(token_id)], skip_special_tokens=False)
    if "\ufffd" in text:
        raw = token_bytes(tokenizer, token_id)
        if raw is not None:
            text = readable_bytes(raw)
    return text.replace(" ", "␣").replace("\n", "↵") or f"<{token_id}>"


def _byte_level_map() -> dict[str, int]:
    """Byte-level BPE's printable stand-in for each byte (GPT-2's `bytes_to_unicode`), reversed."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = list(kept)
    for b in range(256):
        if b not in kept:
            kept.append(b)
            chars.append(256 + len(chars) - 188)
    return {chr(c): b for b, c in zip(kept, chars, strict=True)}


BYTE_LEVEL = _byte_level_map()


def token_bytes(tokenizer: Any, token_id: int) -> bytes | None:
    """The bytes a token stands for: SentencePiece's byte fallback ("<0xE4>") or a byte-level BPE
    piece; None where the vocabulary says neither."""
    piece = tokenizer.convert_ids_to_tokens(int(token_id))
    if not isinstance(piece, str) or not piece:
        return None
    if len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
        try:
            return bytes([int(piece[3:5], 16)])
        except ValueError:
            return None
    if all(ch in BYTE_LEVEL for ch in piece):
        return bytes(BYTE_LEVEL[ch] for ch in piece)
    return None


def readable_bytes(raw: bytes) -> str:
    """`raw` as text where it decodes, each byte of a cut character as "<0xE4>"."""
    out, k = [], 0
    while k < len(raw):
        for n in (1, 2, 3, 4):
            try:
                out.append(raw[k : k + n].decode("utf-8"))
            except UnicodeDecodeError:
                continue
            k += n
            break
        else:
            out.append(f"<0x{raw[k]:02X}>")
            k += 1
    return "".join(out)


def recorded(results: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """method -> its recording, for the results of a run that recorded."""
    return {r.method: r.record for r in results if getattr(r, "record", None)}


def steps_of(record: Mapping[str, Any] | None) -> int:
    return len(record.get("steps", [])) if record else 0


def step_of(record: Mapping[str, Any] | None, step: Any) -> dict[str, Any]:
    if not record or record.get("kind") == "none":
        raise UserError(
            (record or {}).get("why") or 'this run was not recorded; tick "Record why each token was chosen"'
        )
    n = steps_of(record)
    if n == 0:
        raise UserError("the run generated no tokens")
    try:
        i = int(step)
    except (TypeError, ValueError):
        raise UserError(f"step must be a whole number from 0 to {n - 1}, got {step!r}") from None
    if not 0 <= i < n:
        raise UserError(f"step must be from 0 to {n - 1}, got {step!r}")
    return record["steps"][i]


def candidates_frame(record: Mapping[str, Any], tokenizer: Any, step: Any, top: int = 10) -> pd.DataFrame:
    """The step's candidates: the `top` tokens by the last stage's probability (what was sampled
    from), then any others that were in some stage's top-k, and the drawn token wherever it ranks.
    Probabilities in percent; a method that chooses by its own numbers (contrastive search's similarity
    and score) adds a column for each, empty for the tokens it did not consider."""
    s = step_of(record, step)
    stages = list(record["stages"])
    rows = []
    for i, token_id in enumerate(s["ids"]):
        probs = [s["probs"][k][i] for k in range(len(stages))]
        rows.append([token_text(tokenizer, token_id), token_id, *[round(100 * p, 2) for p in probs]])
    frame = pd.DataFrame(rows, columns=["token", "id", *stages])
    for column, values in (s.get("values") or {}).items():  # a method's own numbers (contrastive search)
        frame[column] = [round(v, 4) if v is not None else None for v in values]
    frame[CHOSEN] = ["◀ drawn" if t == s["chosen"] else "" for t in frame["id"]]
    keep = (frame.index < top) | (frame["id"] == s["chosen"])
    return frame[keep].reset_index(drop=True)


def beams_frame(record: Mapping[str, Any], tokenizer: Any, step: Any) -> pd.DataFrame:
    """The running beams at the step, best first: their text so far and cumulative log-probability
    (identical beams, as at step 0 where every beam is the prompt, are shown once)."""
    s = step_of(record, step)
    seen: set[tuple[int, ...]] = set()
    rows: list[list[Any]] = []
    for beam in sorted(s["beams"], key=lambda b: -b["score"]):
        key = tuple(beam["tokens"])
        if key in seen or not math.isfinite(beam["score"]):
            continue
        seen.add(key)
        text = tokenizer.decode(beam["tokens"], skip_special_tokens=False) if beam["tokens"] else "(the prompt)"
        rows.append([len(rows) + 1, text, round(beam["score"], 3), round(math.exp(beam["score"]) * 100, 4)])
    return pd.DataFrame(rows, columns=["rank", "beam so far", "log-probability", "probability (%)"])


def word_ids(tokenizer: Any, words: Iterable[str]) -> dict[str, set[int]]:
    """Each word's token ids: the word alone and after a space ("the", "␣the", "The", "␣The")."""
    out: dict[str, set[int]] = {}
    for word in words:
        ids: set[int] = set()
        for form in {word, " " + word, word.capitalize(), " " + word.capitalize()}:
            encoded = tokenizer.encode(form, add_special_tokens=False)
            if len(encoded) == 1:
                ids.add(int(encoded[0]))
        out[word] = ids
    return out


def shift(record: Mapping[str, Any], tokenizer: Any, words: Iterable[str] = ("the", "的")) -> pd.DataFrame:
    """For each word, its probability summed over the run's steps, before the processors ("model")
    and after each one: where the tilt takes mass away from frequent words, the column after it is
    lower. Only the steps where the word was among the recorded candidates count (elsewhere it was
    below every stage's top-k, so nearly zero in all of them)."""
    if not record or record.get("kind") != "sampling":
        raise UserError("the probability shift is for sampled runs (beam search keeps beams, not stages)")
    stages = list(record["stages"])
    rows = []
    for word, ids in word_ids(tokenizer, words).items():
        total = [0.0] * len(stages)
        steps = 0
        for s in record["steps"]:
            hit = [i for i, t in enumerate(s["ids"]) if t in ids]
            if not hit:
                continue
            steps += 1
            for k in range(len(stages)):
                total[k] += sum(s["probs"][k][i] for i in hit)
        rows.append([word, steps, *[round(t / steps * 100, 2) if steps else 0.0 for t in total]])
    return pd.DataFrame(rows, columns=["word", "steps", *[f"{s} (mean %)" for s in stages]])
