"""Exports carry skips, flags and can't-judge answers, import them back losslessly (SQLite and
PostgreSQL), and files written before format 3 still import."""

from __future__ import annotations

import csv
import json

import pytest

from arena.access import invites
from arena.files.export import EXPORT_COLUMNS, export_rows, export_to_path, import_file
from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from tests.support.stores import BACKENDS, open_store

KEYS = (
    "row_kind",
    "item_public_id",
    "rater",
    "method",
    "sample_index",
    "position",
    "coherence",
    "informativeness",
    "naturalness",
    "cant_judge",
    "reason",
    "note",
    "comment",
    "text",
    "created_at",
)


def fill(store: Store) -> int:
    sid = store.create_study("feedback export", methods=["BS-4", "TS-Temp"], max_new_tokens=8, base_seed=5)
    iids = store.add_items(sid, [{"prompt": f"=prompt {k}", "scenario": "s", "language": "en"} for k in range(3)])
    for iid in iids:
        store.add_output(
            iid, "BS-4", 0, text=f"beam {iid}", settings={"num_beams": 4}, seed=None, model="m", new_tokens=8
        )
        store.add_output(
            iid, "TS-Temp", 0, text=f"temp {iid}", settings={"temperature": 0.7}, seed=9, model="m", new_tokens=8
        )
    [made] = invites.invite(store, sid, ["ann"])
    ann = invites.resolve(store, made.code)
    view, _ = blind.open_item(store, "ann", sid, 1)  # rated, one dimension of A can't be judged
    blind.submit(
        store,
        "ann",
        view.item,
        {
            "A": {"coherence": 4, "informativeness": blind.CANT_JUDGE, "naturalness": 3},
            "B": {"coherence": 2, "informativeness": 2, "naturalness": 2},
        },
    )
    blind.flag_for(store, ann, view.item, "B", "broken", "=stops after one word")
    view, _ = blind.open_item(store, "ann", sid, 2)  # skipped
    blind.skip(store, "ann", view.item, "other", "needs domain knowledge")
    blind.flag_for(store, ann, view.item, None, "personal", None)
    return sid


def key(rows):
    return sorted(json.dumps({k: str(r.get(k)) for k in KEYS}, sort_keys=True) for r in rows)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_skips_flags_and_cant_judge_survive_a_round_trip(tmp_path, backend, fmt):
    source, close_source = open_store("sqlite", tmp_path / "a")
    target, close_target = open_store(backend, tmp_path / "b")
    try:
        sid = fill(source)
        sealed = [r for r in export_rows(source, sid) if r["row_kind"] == "flag" and r["position"] is not None]
        assert sealed[0]["method"] is None and sealed[0]["seed"] is None  # open study: sealed, as for ratings
        source.set_study_state(sid, "closed", allowed_from=("open",))  # an open study's file does not import
        rows = export_rows(source, sid)
        kinds = [r["row_kind"] for r in rows]
        assert kinds.count("rating") == 2 and kinds.count("skip") == 1 and kinds.count("flag") == 2
        [cant] = [r for r in rows if r["cant_judge"]]
        assert cant["cant_judge"] == "informativeness" and cant["informativeness"] is None
        [skip] = [r for r in rows if r["row_kind"] == "skip"]
        assert skip["reason"] == "other" and skip["note"] == "needs domain knowledge" and skip["method"] is None
        response_flag = next(r for r in rows if r["row_kind"] == "flag" and r["method"])
        assert response_flag["position"] == 1 and response_flag["text"].startswith(("beam", "temp"))
        assert response_flag["seed"] in (None, 9)  # closed: BS-4's seedless output, or TS-Temp's
        path = tmp_path / f"out.{fmt}"
        assert export_to_path(source, path) == 5
        counts = import_file(target, path)
        assert counts == {
            "studies": 1,
            "items": 2,
            "outputs": 2,
            "ratings": 2,
            "skips": 1,
            "flags": 2,
            "guesses": 0,
            "votes": 0,
        }
        assert key(export_rows(target)) == key(rows)
        again = import_file(target, path)  # idempotent
        assert again["flags"] == 0 and again["outputs"] == 0 and len(target.flags()) == 2 and len(target.skips()) == 1
        assert key(export_rows(target)) == key(rows)
        [new_sid] = [s.id for s in target.list_studies()]
        assert target.ratings_frame(new_sid)["informativeness"].isna().sum() == 1
    finally:
        close_source()
        close_target()


def test_files_from_before_format_3_still_import(tmp_path):
    """A format-2 file (state and version, no row kinds) and a format-1 file (the export columns only)."""
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = source.create_study("old", methods=["BS-4", "TS-Temp"])
    [iid] = source.add_items(sid, [{"prompt": "p"}])
    for m in ("BS-4", "TS-Temp"):
        source.add_output(iid, m, 0, text=f"{m} text", settings={}, seed=1, model="m", new_tokens=2)
    view, _ = blind.open_item(source, "ann", sid)
    blind.submit(
        source,
        "ann",
        view.item,
        {r.label: {"coherence": 3, "informativeness": 4, "naturalness": 5} for r in view.responses},
    )
    source.set_study_state(sid, "closed", allowed_from=("open",))  # an open study's file does not import
    path = tmp_path / "new.csv"
    export_to_path(source, path)
    rows = list(csv.DictReader(path.open(newline="", encoding="utf-8")))
    for name, columns, version in (
        ("v2.csv", EXPORT_COLUMNS + ("study_state", "format_version"), "2"),
        ("v1.csv", EXPORT_COLUMNS, None),
    ):
        old = tmp_path / name
        with open(old, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(columns)
            for r in rows:
                writer.writerow([version if c == "format_version" else r[c] for c in columns])
        target = Store(f"sqlite:///{tmp_path / (name + '.db')}")
        counts = import_file(target, old)
        assert counts["ratings"] == 2 and counts["skips"] == counts["flags"] == 0
        assert (
            target.ratings_frame()[["coherence", "informativeness", "naturalness"]].values.tolist() == [[3, 4, 5]] * 2
        )
        target.dispose()
    source.dispose()


def test_bad_feedback_rows_are_refused_before_anything_is_stored(tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    source.set_study_state(fill(source), "closed", allowed_from=("open",))  # else the file is refused as blind
    path = tmp_path / "good.jsonl"
    export_to_path(source, path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    skip_at = next(k for k, r in enumerate(lines) if r["row_kind"] == "skip")
    rating_at = next(k for k, r in enumerate(lines) if r["cant_judge"])
    for k, change in (
        (skip_at, {"reason": "bored"}),
        (skip_at, {"coherence": 3}),
        (skip_at, {"row_kind": "vote"}),
        (rating_at, {"informativeness": 4}),
        (rating_at, {"cant_judge": "fluency"}),
        (rating_at, {"cant_judge": None}),
    ):
        bad = [dict(r) for r in lines]
        bad[k].update(change)
        bad_path = tmp_path / "bad.jsonl"
        bad_path.write_text("\n".join(json.dumps(r) for r in bad) + "\n", encoding="utf-8")
        target = Store(f"sqlite:///{tmp_path / 'b.db'}")
        with pytest.raises(UserError):
            import_file(target, bad_path)
        assert target.list_studies() == [] and target.count_ratings() == 0
        target.dispose()
    source.dispose()
