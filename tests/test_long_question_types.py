"""Outside data in the long format with every question type (`question_type` column): read with the
file's own types (a choice's labels as they first appear), imported as a study whose export holds
each answer as the file gave it, and refused, one line naming the file and the line, where a row
breaks its question's type."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from arena.files import export
from arena.files.long_ratings import read_long_ratings
from arena.store import Store
from common.errors import UserError

HEADER = ["study_id", "item_id", "rater", "method", "dimension", "score", "question_type"]
METHODS = ("greedy", "nucleus")
ERRORS = ("off-topic", "repetition", "factual")


def rows() -> list[list[str]]:
    """Two raters, two items, two methods; a 1-5 scale, yes/no, a choice, a comment (one left empty,
    one yes/no left empty: can't judge)."""
    out = []
    for rater in ("ann", "bo"):
        for item in ("p1", "p2"):
            for k, method in enumerate(METHODS):
                base = ["survey", item, rater, method]
                out.append([*base, "quality", str(2 + k + (rater == "bo")), ""])
                blank = (rater, item, method) == ("bo", "p2", "nucleus")
                out.append([*base, "correct", "" if blank else ("yes" if k else "no"), "yes-no"])
                out.append([*base, "error", ERRORS[(k + (item == "p2")) % 3], "choice"])
                out.append([*base, "why", "" if k else f"{rater} on {item}", "text"])
    return out


def write(path: Path, body: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([HEADER, *body])
    return path


def test_each_question_is_read_with_its_type(tmp_path):
    [study] = read_long_ratings(write(tmp_path / "s.csv", rows())).studies
    kinds = {d.name: d.kind for d in study.rubric.dimensions}
    assert kinds == {"quality": "scale", "correct": "yes-no", "error": "choice", "why": "text"}
    assert study.rubric.dimension("error").labels == ("off-topic", "repetition", "factual")
    first = study.ratings[0]  # ann, p1, greedy
    assert dict(first.scores) == {"quality": 2, "correct": 0, "error": 0, "why": "ann on p1"}
    assert dict(study.ratings[-1].scores) == {"quality": 4, "correct": None, "error": 2, "why": None}


def test_imported_the_export_holds_each_answer_as_the_file_gave_it(tmp_path):
    path = write(tmp_path / "survey.csv", rows())
    assert (
        export.main(["--database", f"sqlite:///{tmp_path / 'a.db'}", "--import-ratings", str(path), "--name", "Types"])
        == 0
    )
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        got = [r for r in export.export_rows(store) if r["row_kind"] == "rating"]
    finally:
        store.dispose()
    assert len(got) == 8
    given = {(r[2], r[1], r[3], r[4]): r[5] for r in rows()}  # (rater, item, method, question) -> cell
    for r in got:
        item = r["prompt"].removeprefix("item ")
        cell = {q: given[(r["rater"], item, r["method"], q)] for q in ("quality", "correct", "error", "why")}
        assert str(r["quality"]) == cell["quality"] and r["error"] == cell["error"]
        assert r["correct"] == {"yes": 1, "no": 0, "": None}[cell["correct"]]
        assert (r["why"] or "") == cell["why"]
        # an empty yes/no is "can't judge"; an empty comment is only no comment
        assert ("correct" in (r["cant_judge"] or "")) == (cell["correct"] == "")
        assert "why" not in (r["cant_judge"] or "")


@pytest.mark.parametrize(
    "change, refusal",
    [
        (lambda b: b.__setitem__(5, [*b[5][:5], "yes", "scale"]), "line 7: correct is a yes-no question on an earlier line, scale here"),
        (lambda b: b.__setitem__(1, [*b[1][:5], "maybe", "yes-no"]), "line 3: correct must be"),
        (lambda b: b.append(["survey", "p9", "cy", "greedy", "quality", "3", "rating"]), "unknown question type 'rating'"),
        (lambda b: b.extend(["survey", "p1", f"r{k}", "greedy", "error", f"label {k}", "choice"] for k in range(8)), "label(s): a choice has 2 to 8"),
    ],
)  # fmt: skip
def test_a_row_that_breaks_its_questions_type_is_refused_naming_the_file(tmp_path, change, refusal):
    body = rows()
    change(body)
    with pytest.raises(UserError, match="s.csv") as refused:
        read_long_ratings(write(tmp_path / "s.csv", body))
    assert refusal in str(refused.value)


def test_the_analysis_cli_reads_the_file_with_its_types(tmp_path, capsys):
    from evaluation.human import cli

    assert cli.main([str(write(tmp_path / "s.csv", rows())), "--no-mixed"]) == 0
    out = capsys.readouterr().out
    assert (
        "quality (1-5) greedy: 2.50" in out and "correct" in out and "ann on p1" not in out
    )  # comments never analysed
