"""Preference pairs for training (`{prompt, chosen, rejected}`, decisive votes only, one line per pair of
texts by majority): moved to `arena.preferences`, which the export CLI uses; importable from here."""

from arena.preferences import preference_pairs as preference_pairs
from arena.preferences import write_preference_jsonl as write_preference_jsonl
