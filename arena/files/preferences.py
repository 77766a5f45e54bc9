"""Preference pairs for training: `{prompt, chosen, rejected}` lines, the form DPO trainers read
(TRL's DPOTrainer and its kin), from the decisive votes of a closed study
(`python -m arena.export --preferences --study N -o pairs.jsonl`; the rows: `arena.files.pair_export.preference_rows`).

Ties and "both bad" say nothing about which answer to prefer and are left out, as is a pair whose
two texts are identical. With `policy="majority"` (the default) the votes on one pair of texts
(the same prompt and the same two answers, in either order) give one line, for the answer most
raters chose; a pair the raters split evenly gives none, because a trainer would otherwise see
both orders and learn nothing but noise. `policy="every"` gives one line per decisive vote.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import IO, Any, Literal

from arena.files.export_columns import in_format

# A vote's outcomes (arena.store.schema.VOTE_WINNERS; not imported: this module stays free of the store).
WINNERS: tuple[str, ...] = ("a", "b", "tie", "bothbad")
PREFERENCE_COLUMNS: tuple[str, ...] = in_format("preferences")  # prompt, chosen, rejected

Policy = Literal["majority", "every"]


def preference_pairs(rows: Iterable[Mapping[str, Any]], policy: Policy = "majority") -> list[dict[str, str]]:
    """Lines {prompt, chosen, rejected} from rows with prompt, text_a, text_b and winner (a, b,
    tie, bothbad); in the order the pairs first appear. Raises ValueError on an unknown winner or
    policy, or a row without one of those fields.

    >>> preference_pairs([{"prompt": "p", "text_a": "x", "text_b": "y", "winner": "b"}])
    [{'prompt': 'p', 'chosen': 'y', 'rejected': 'x'}]
    """
    if policy not in ("majority", "every"):
        raise ValueError("policy must be 'majority' or 'every'")
    every: list[dict[str, str]] = []
    tally: dict[tuple[str, str, str], dict[str, int]] = {}
    for n, row in enumerate(rows):
        try:
            prompt, text_a, text_b = str(row["prompt"]), str(row["text_a"]), str(row["text_b"])
            winner = str(row["winner"]).strip().lower()
        except KeyError as exc:
            raise ValueError(f"row {n}: no {exc.args[0]!r}") from None
        if winner not in WINNERS:
            raise ValueError(f"row {n}: winner = {row['winner']!r} is not one of {', '.join(WINNERS)}")
        if winner not in ("a", "b") or text_a == text_b:
            continue
        chosen, rejected = (text_a, text_b) if winner == "a" else (text_b, text_a)
        every.append({"prompt": prompt, "chosen": chosen, "rejected": rejected})
        key = (prompt, min(text_a, text_b), max(text_a, text_b))
        counts = tally.setdefault(key, {})
        counts[chosen] = counts.get(chosen, 0) + 1
    if policy == "every":
        return every
    out = []
    for (prompt, first, second), counts in tally.items():
        a, b = counts.get(first, 0), counts.get(second, 0)
        if a != b:
            chosen, rejected = (first, second) if a > b else (second, first)
            out.append({"prompt": prompt, "chosen": chosen, "rejected": rejected})
    return out


def write_preference_jsonl(pairs: Iterable[Mapping[str, str]], out: IO[str]) -> int:
    """Write one JSON object per line (UTF-8 text kept as is); returns the number of lines."""
    n = 0
    for pair in pairs:
        out.write(json.dumps({k: pair[k] for k in PREFERENCE_COLUMNS}, ensure_ascii=False) + "\n")
        n += 1
    return n
