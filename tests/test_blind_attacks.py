"""Attacks on blindness that need no running server: predicting orders, replaying seeds, twins.

Each test reproduces an attack that worked on the first version and shows that it fails now:
  3. one unblinded item predicted all 120 (rater, item, label) rows: orders are now secret per
     rater and per block, and independent across raters and blocks;
  4. TS-Temp and TS-Tilted shared a seed per item (byte-identical outputs): every (item, method,
     sample) now has its own derived seed;
  2. a study's seed was 0, Compare's default: the study's outputs could be regenerated with names.
"""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from datetime import UTC, datetime

import numpy as np
import pytest
from scipy import stats

from arena import studies
from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods
from arena.store import Output, Store

SYSTEMS = [("BS-4", 0), ("TS-Temp", 0), ("TS-Tilted", 0)]
OUTPUTS = [
    Output(
        id=10 + k,
        item_id=1,
        method=m,
        sample_index=s,
        settings="{}",
        seed=None,
        model="m",
        text="",
        new_tokens=0,
        prompt_tokens=None,
        latency_ms=None,
        ttft_ms=None,
        tokens_per_s=None,
        finish_reason=None,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    for k, (m, s) in enumerate(SYSTEMS)
]
PERMS = list(itertools.permutations([10, 11, 12]))


def order(seed: int, ordinal: int) -> int:
    """Index (0..5) of the permutation of the three outputs a rater with `seed` sees on item `ordinal`."""
    return PERMS.index(tuple(blind.balanced_order(OUTPUTS, seed, ordinal)))


def joint(pairs) -> np.ndarray:
    table = np.zeros((6, 6))
    for a, b in pairs:
        table[a, b] += 1
    return table


RATERS = 3000
SEEDS = [secrets.randbelow(2**62) for _ in range(RATERS)]


def test_each_rater_is_balanced_over_every_complete_block():
    size = blind.block_size(3)
    assert size == 6
    for seed in SEEDS[:200]:
        for block in range(3):
            counts = Counter()
            for k in range(block * size, (block + 1) * size):
                for pos, oid in enumerate(blind.balanced_order(OUTPUTS, seed, k)):
                    counts[(oid, pos)] += 1
            assert set(counts.values()) == {2} and len(counts) == 9  # each method twice in each position


def test_an_unblinded_item_says_nothing_about_other_raters_or_other_blocks():
    """Knowing rater r's order on item 0 (say, by recognising BS-4's text): is another rater's order on
    the same item, or r's own order in the next block, any more predictable? A chi-square test of
    independence over 3000 simulated raters: it must not find dependence."""
    other_rater = joint((order(SEEDS[i], 0), order(SEEDS[(i + 1) % RATERS], 0)) for i in range(RATERS))
    other_block = joint((order(s, 0), order(s, 6 + (s % 6))) for s in SEEDS)
    for table in (other_rater, other_block):
        assert stats.chi2_contingency(table).pvalue > 1e-3
        # the attacker's best guess: the most frequent order in each row of the table
        best = table.max(axis=1).sum() / table.sum()
        assert best < 1 / 6 + 4 * np.sqrt((1 / 6) * (5 / 6) / RATERS) + 0.03


def test_within_a_block_the_only_leak_is_what_balance_implies():
    """In the same block the seen row is used up: the other items show each of the other 5 orders
    with probability 1/5 and never the seen one. Nothing else is learnt: off the diagonal the table
    is uniform. (For 3 methods, guessing the method at position A of another item of the block is
    right 2/5 of the time instead of 1/3: the price of exact balance; see docs/studies.md, the threat model.)"""
    table = joint((order(s, 0), order(s, 1 + (s % 5))) for s in SEEDS)
    assert np.trace(table) == 0
    off = table[~np.eye(6, dtype=bool)]
    expected = np.full_like(off, off.sum() / off.size)
    assert stats.chisquare(off, expected).pvalue > 1e-3


def test_the_first_versions_prediction_attack_now_fails():
    """v1: order = study secret permutation + Williams row (item ordinal + rater arrival index). From one
    unblinded (rater, item) the attacker solved the study permutation and predicted every other row.
    Replayed here against the new orders: its hit rate on other raters is chance (1/3 per label)."""
    rows = blind.williams_rows(3)
    hits = total = 0
    for r in range(200):
        seed_r = SEEDS[r]
        seen = blind.balanced_order(OUTPUTS, seed_r, 0)
        # attacker: the row v1 would use for (item 0, rater r) is rows[r % 6]; solve the permutation
        row = rows[r % 6]
        symbol_to_output = {row[p]: seen[p] for p in range(3)}
        for other in range(1, 4):
            for k in range(6):
                predicted = [symbol_to_output[s] for s in rows[(k + r + other) % 6]]
                actual = blind.balanced_order(OUTPUTS, SEEDS[(r + other) % RATERS], k)
                hits += sum(p == a for p, a in zip(predicted, actual))
                total += 3
    rate = hits / total
    assert abs(rate - 1 / 3) < 4 * np.sqrt((1 / 3) * (2 / 3) / total) + 0.01


def test_every_slot_gets_its_own_seed_and_the_base_seed_is_secret(tmp_path):
    seeds = {
        studies.derive_seed(12345, pid, m, s) for pid in ("a", "b") for m in ("TS-Temp", "TS-Tilted") for s in range(3)
    }
    assert len(seeds) == 12 and all(0 <= x < 2**53 for x in seeds)
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    bases = {
        store.get_study(
            studies.create_study(
                store, StudySpec(f"study {k}", studies.builtin_prompts("en"), methods=["TS-Temp", "TS-Tilted"])
            )
        ).base_seed
        for k in range(4)
    }
    assert len(bases) == 4 and 0 not in bases
    assert all(store.get_study(s.id).state == "draft" for s in store.list_studies())


@pytest.mark.timeout(600)
def test_generated_study_seeds_differ_per_method_and_seed_zero_does_not_replay_it(lm, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    prompts = [studies.PromptSpec("Write one sentence about the sea.", "s", "en")]
    sid = studies.create_study(
        store,
        StudySpec("replay check", prompts, methods=["TS-Temp", "TS-Tilted"], max_new_tokens=12, samples_per_method=2),
        model=lm.name,
        lm=lm,
    )
    report = studies.generate_study(store, lm, sid)
    assert report.complete and report.opened and store.get_study(sid).state == "open"
    outs = store.outputs_frame(sid)
    assert outs["seed"].nunique() == 4  # TS-Temp x2, TS-Tilted x2: no shared seed
    [item] = store.items(sid)
    for _, o in outs.iterrows():
        assert o.seed == studies.derive_seed(store.get_study(sid).base_seed, item.public_id, o.method, o.sample_index)
    # The attacker's replay: Compare's default seed 0 on the study's prompt and settings.
    replay = run_methods(
        lm, RunRequest(prompt=prompts[0].prompt, methods=["TS-Temp", "TS-Tilted"], max_new_tokens=12, seed=0)
    )
    stored = set(outs["text"])
    assert not any(r.text in stored for r in replay)


def test_identical_texts_from_two_methods_are_reported(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = store.create_study("twins", methods=["BS-4", "TS-Temp", "TS-Tilted"], state="draft")
    [iid] = store.add_items(sid, [{"prompt": "p"}])
    for m, t in (("BS-4", "alpha"), ("TS-Temp", "same words"), ("TS-Tilted", "same words ")):
        store.add_output(iid, m, 0, text=t, settings={}, seed=1, model="m", new_tokens=2)
    assert studies.identical_texts(store, sid) == [(1, ["TS-Temp", "TS-Tilted"])]
