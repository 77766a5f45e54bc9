"""Numbers that cannot be true are not shown (issue 35): a 1-5 mean's interval stays on the scale and
says where it was cut; an Elo estimate whose interval spans thousands of points (a few votes) is
"not estimable" instead of "-343 Elo (95% CI -27619 to +26933)"."""

from __future__ import annotations

import random
import re

import pandas as pd

from evaluation import pairwise as pw
from evaluation.pairwise_view import leaderboard_table
from evaluation.results import display_table

SYSTEMS = ("BS-4", "TS-Temp", "TS-Tilted")


def eight_votes() -> pd.DataFrame:
    rng = random.Random(1)
    rows = []
    for k in range(8):
        a, b = rng.sample(SYSTEMS, 2)
        winner = rng.choice(["a", "b", "tie"])
        rows.append(dict(study_id=1, item_id=k, rater=f"r{k % 3}", system_a=a, system_b=b, winner=winner,
                         len_a=rng.randint(5, 60), len_b=rng.randint(5, 60)))  # fmt: skip
    return pw.check_votes(pd.DataFrame(rows))


def numbers_in(text: str) -> list[float]:
    return [float(n.replace("−", "-")) for n in re.findall(r"[-−+]?\d+(?:\.\d+)?", text)]


def test_few_votes_give_not_estimable_instead_of_absurd_elo():
    result = pw.rate(eight_votes(), n_resamples=200)
    eff = result.length_effect
    assert eff is not None and eff["ci_high_if_twice_as_long"] - eff["ci_low_if_twice_as_long"] > 5000  # absurd
    table = leaderboard_table(result)
    words = "\n".join(pw.explain(result))
    shown = table.to_string() + "\n" + words
    assert "not estimable" in words and "not estimable" in table["at equal length [95% CI]"].iloc[0]
    assert max(abs(n) for n in numbers_in(shown)) < 5000, shown


def test_a_mean_interval_stays_on_the_scale_and_says_it_was_cut():
    row = {"method": "TS-Temp", "ppl": 9.0, "mauve": None, "distinct_2": 0.5, "repetition_pct": 0.0,
           "self_bleu4": 0.1, "zipf": 1.0, "latency_ms": 100.0, "tokens_per_s": 10.0}  # fmt: skip
    for dim, (mean, lo, hi) in {
        "coherence": (4.12, 2.31, 5.94),
        "informativeness": (1.5, 0.2, 2.8),
        "naturalness": (3.0, 2.5, 3.5),
    }.items():
        row |= {dim: mean, f"{dim}_ci_low": lo, f"{dim}_ci_high": hi}
    shown = display_table(pd.DataFrame([row])).iloc[0]
    cells = [v for v in shown.to_dict().values() if isinstance(v, str) and "[" in v]
    assert any("4.12 [2.3–5.0, cut at the scale’s top]" == c for c in cells), cells
    assert any("1.50 [1.0–2.8, cut at the scale’s bottom]" == c for c in cells), cells
    assert any(c == "3.00 [2.5–3.5]" for c in cells), cells
