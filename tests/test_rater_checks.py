"""Rater checks that catch what they promise (issue 47): straight-lining per question and across
questions, speeders, random clickers. Each flag fires on its textbook case and stays silent on honest
simulated raters (`evaluation.human.rater_sim`) at the rate docs/studies.md states; an exclusion rule
drops exactly the raters with the flags it names; and the UI walk's straight-liner (quality 8 and
fluency 6 on every one of 18 responses, both attention items passed) is flagged and excluded."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from arena.studies import EXCLUSION_RULES
from common.rubric import Dimension, Rubric
from evaluation.human import quality
from evaluation.human import rater_sim as rs
from evaluation.human import straight_lining as sl
from evaluation.report import compute_view
from tests.support.seeding import publish
from ui.organizer.stats import quality_lines

TEXTBOOK = {"flat": "straight-lining", "grid": "straight-lining", "speeder": "speeder", "clicker": "unrelated"}
STUDIES = 40  # per design; benchmarks/bench_rater_checks.py runs 300 for the rates in docs/studies.md
STATED_FALSE_ALARMS = 0.02  # docs/studies.md: under 1% measured; 2% leaves room for 40 studies' noise


@pytest.fixture(scope="module")
def simulated() -> dict[str, list[pd.DataFrame]]:
    """Every design's flags on STUDIES simulated studies (honest raters r0.. and one of each kind)."""
    out = {}
    for name, design in rs.DESIGNS.items():
        out[name] = [
            quality.rater_flags(rs.study(design, seed), list(design.dimensions), seed=seed, permutations=100)
            for seed in range(STUDIES)
        ]
    return out


@pytest.mark.parametrize("design", list(rs.DESIGNS))
def test_honest_raters_are_flagged_at_most_at_the_stated_rate(simulated, design):
    honest = pd.concat([f[f["rater"].str.match(r"r\d+$")] for f in simulated[design]])
    assert len(honest) >= 100
    for flag in ("straight-lining", "speeder", "against", "unrelated"):
        rate = honest["flags"].map(lambda raised, flag=flag: flag in raised).mean()
        assert rate <= STATED_FALSE_ALARMS, f"{design}: {flag} fired on {rate:.1%} of honest raters"


@pytest.mark.parametrize("design", list(rs.DESIGNS))
@pytest.mark.parametrize("kind", rs.KINDS)
def test_each_flag_fires_on_its_textbook_rater(simulated, design, kind):
    flagged = [kind_row(f, kind) for f in simulated[design]]
    caught = np.mean([TEXTBOOK[kind] in raised for raised in flagged])
    # a random clicker agrees with the others at a p drawn uniformly: missed when it lands under 0.1
    assert caught >= (0.8 if kind == "clicker" else 1.0), f"{design}: {kind} caught in {caught:.0%}"
    # and only by its own flag: each check catches its own pattern
    assert all(set(raised) <= {TEXTBOOK[kind]} for raised in flagged), flagged


def kind_row(flags: pd.DataFrame, kind: str) -> list[str]:
    return list(flags.set_index("rater").loc[kind, "flags"])


def test_every_rule_set_excludes_exactly_the_raters_with_the_flags_it_names(simulated):
    flags = simulated["default 1-5"][0].copy()
    flags.loc[flags["rater"] == "r1", "attention_failed"] = True
    flags["flags"] = [
        [rule for rule, column in quality.FLAG_OF.items() if row[column]] for row in flags.to_dict("records")
    ]
    assert tuple(quality.RULES) == EXCLUSION_RULES == tuple(quality.FLAG_OF)
    for n in range(len(quality.RULES) + 1):
        for rules in itertools.combinations(quality.RULES, n):
            expected = {r["rater"] for r in flags.to_dict("records") if any(r[quality.FLAG_OF[x]] for x in rules)}
            assert set(quality.excluded_raters(flags, rules).raters) == expected, rules


def test_a_straight_liner_per_question_is_told_apart_from_one_across_questions(simulated):
    flags = simulated["default 1-5"][0].set_index("rater")
    assert sl.ACROSS not in flags.loc["flat", "flat_on"] and len(flags.loc["flat", "flat_on"]) == 3
    assert flags.loc["grid", "flat_on"] == [sl.ACROSS]
    said = quality.flag_words(flags.reset_index().set_index("rater", drop=False).loc["grid"].to_dict())
    assert "the same score on every question of a response" in said


def test_few_items_alone_are_not_enough_to_accuse_anyone():
    # one rater, 4 items, every response tied on a question: half the units flat by chance is the
    # assumption without others to compare with, and 0.5^4 is far from FLAT_P
    frame = pd.DataFrame(
        [{"rater": "solo", "item_id": i, "output_id": 3 * i + m, "q": 3} for i in range(4) for m in range(3)]
    )
    assert not sl.straight_lining(frame, ["q"]).loc[0, "straight_lining"]
    # ... while 12 such items are: 0.5^12 < FLAT_P
    frame = pd.DataFrame(
        [{"rater": "solo", "item_id": i, "output_id": 3 * i + m, "q": 3} for i in range(12) for m in range(3)]
    )
    assert sl.straight_lining(frame, ["q"]).loc[0, "flat_on"] == ["q"]


# ---- the UI walk of issue 47 -------------------------------------------------------------------------

RUBRIC = Rubric((Dimension("quality", 1, 10), Dimension("fluency", 1, 10)))
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def walk_study(store, rules: tuple[str, ...]) -> int:
    """6 prompts x 3 methods = 18 responses of ~100 tokens, a 1-10 rubric with two questions, three
    raters a minute per item: an attentive one, one who failed an attention item and clicked at
    random, and one who gave quality 8 and fluency 6 to every response and passed both attention items."""
    sid = store.create_study(
        "UI walk",
        model="dummy",
        methods=METHODS,
        state="closed",
        items_=[{"prompt": f"prompt {i}", "scenario": "walk"} for i in range(6)],
        rubric=RUBRIC,
        exclusion_rules=rules,
    )
    outputs = {}
    for item in store.items(sid):
        for m in METHODS:
            outputs[(item.id, m)], _ = store.add_output(
                item.id, m, 0, text="words " * 100, settings={}, seed=1, model="dummy", new_tokens=100
            )
    rng = np.random.default_rng(3)
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    kinds = {"attentive": True, "clicker": False, "straight": True}
    for rater, passed in kinds.items():
        rid = store.rater_id(rater)
        store.study_rater_index(sid, rid)
        rows = []
        for k, ((item_id, m), oid) in enumerate(sorted(outputs.items())):
            good = 3 + 2 * METHODS.index(m) + (item_id % 3)  # methods apart, items apart
            score = {
                "attentive": {"quality": good + int(rng.integers(0, 2)), "fluency": good + int(rng.integers(-1, 2))},
                "clicker": {"quality": int(rng.integers(1, 11)), "fluency": int(rng.integers(1, 11))},
                "straight": {"quality": 8, "fluency": 6},
            }[rater]
            at = start + timedelta(seconds=60 * (k // 3 + 1))
            rows.append({"output_id": oid, **score, "position": k % 3, "created_at": at, "updated_at": at})
        store.save_ratings(rid, rows, RUBRIC)
        store.record_attention(sid, rid, passed)
    publish(store, sid)
    return sid


def test_the_ui_walks_straight_liner_is_flagged_and_excluded(store):
    sid = walk_study(store, ("straight-lining",))
    ratings = store.ratings_frame(sid)
    assert len(ratings[ratings["rater"] == "straight"]) == 18
    flags = quality.rater_flags(ratings, RUBRIC, quality.failed_attention_of(ratings)).set_index("rater")
    assert flags.loc["straight", "flags"] == ["straight-lining"]
    assert flags.loc["straight", "flat_on"] == ["quality", "fluency"]
    assert flags.loc["attentive", "flags"] == [] and "attention" in flags.loc["clicker", "flags"]
    view = compute_view(store, sid)
    assert view["exclusion"][0].startswith("1 of 3 raters excluded by the rule set at creation (gave the same score")
    assert set(view["results"].means["method"]) == set(METHODS)
    study = store.get_study(sid)
    said = "\n".join(quality_lines(ratings, study))
    assert "straight: straight-lining: the same score on every response of an item on quality" in said
    assert "nothing stands out" not in said.split("straight:")[1].split("\n")[0]


def test_the_rule_excludes_only_what_it_names(store):
    sid = walk_study(store, ("attention",))  # the straight-liner passed attention: kept by this rule
    view = compute_view(store, sid)
    assert view["exclusion"][0].startswith("1 of 3 raters excluded by the rule set at creation (failed any attention")
    kept, exclusion, _ = quality.apply_rules(store.ratings_frame(sid), RUBRIC, ("attention",))
    assert exclusion.raters == ("clicker",) and "straight" in set(kept["rater"])
