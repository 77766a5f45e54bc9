"""Pairwise votes (issue 34): all-tie votes give no interval (not "1000, CI 1000-1000") and say why; a
votes file concatenated twice is counted once with a warning; two verdicts on one pair are an error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from evaluation.pairwise import as_dict, explain, rate, table_lines

ROOT = Path(__file__).resolve().parents[1]


def tied_votes() -> pd.DataFrame:
    rows = []
    for item in range(12):
        for rater in ("ann", "bob", "cy"):
            rows.append(
                {"study_id": 1, "item_id": item, "rater": rater, "system_a": "X", "system_b": "Y", "winner": "tie"}
            )
            rows.append(
                {"study_id": 1, "item_id": item, "rater": rater, "system_a": "Y", "system_b": "Z", "winner": "bothbad"}
            )
    return pd.DataFrame(rows)


def test_all_tie_votes_give_no_interval_and_say_why():
    result = rate(tied_votes(), n_resamples=200)
    assert result.systems["ci_low"].isna().all() and result.differences["ci_low"].isna().all()
    assert "1000–1000" not in "\n".join(table_lines(result))
    said = " ".join(explain(result))
    assert "Every vote was a tie" in said and "no interval" in said
    assert all(s["ci_low"] is None for s in as_dict(result)["systems"].values())


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluation.pairwise", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_a_concatenated_votes_file_is_counted_once_with_a_warning(tmp_path):
    votes = tied_votes().assign(winner=np.where(np.arange(72) % 3 == 0, "a", "tie"))
    votes.to_csv(tmp_path / "once.csv", index=False)
    pd.concat([votes, votes]).to_csv(tmp_path / "twice.csv", index=False)
    once, twice = run(str(tmp_path / "once.csv"), "--json"), run(str(tmp_path / "twice.csv"), "--json")
    assert once.returncode == twice.returncode == 0 and once.stdout == twice.stdout
    assert (
        twice.stderr.strip()
        == f"warning: {tmp_path / 'twice.csv'}: 72 exact repeat(s) of a vote (same rater, item, systems and verdict) counted once"
    )
    clash = pd.concat([votes, votes.iloc[:1].assign(winner="b")])
    clash.to_csv(tmp_path / "clash.csv", index=False)
    bad = run(str(tmp_path / "clash.csv"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "with different verdicts" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
