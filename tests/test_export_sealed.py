"""Issue 44: an open study's exports hold no secret, whichever door a user takes.

The promise, not a list: two worlds with the same public inputs and the same things raters saw and
answered (prompts, texts under the same letters, scores, comments, guesses, skips, flags, votes), but
different secrets (the base and blind seeds, every output's seed, and which method wrote which text),
must give value-for-value identical exports through every door while the studies are open: the
library functions, the Organizer's download handlers and the CLI, in CSV, JSONL, votes and
preferences. Closed, the same doors tell the worlds apart (so the comparison can fail).

And the attack of issue 44, kept: from an open study's export alone, regenerate every method's
outputs with the seeds and settings the export gives, and match them to the rated texts.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena import studies
from arena.access import invites
from arena.engines.dummy import DummyEngine
from arena.files import export, pair_export
from arena.rating import blind, pair_rating
from arena.rating.guessing import LABELS
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest
from arena.store import Store
from arena.store.rows import Output
from arena.studies.seeds import derive_seed
from common.rubric import Rubric
from tests.support.stores import open_store
from ui.organizer import handlers as h

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
STAND_IN = SimpleNamespace(name="public-model")  # what the dummy engine reads of a model: its name
# What an output carries besides its text, as export columns: everything that moves when another
# method wrote the same text (from the store's own row, not from the export's list of columns).
OUTPUT_IDENTITY = tuple(
    {"id": "output_id", "created_at": "output_created_at"}.get(f.name, f.name)
    for f in fields(Output)
    if f.name not in ("item_id", "text")
)


# Every question type (common/questions/): what a rater answers in each becomes an export column.
EVERY_TYPE = Rubric.from_dict(
    {
        "dimensions": [
            {"name": "quality", "low": 1, "high": 7},
            {"name": "correct", "type": "yes-no"},
            {"name": "error", "type": "choice", "labels": ["repetition", "off-topic", "none"]},
            {"name": "why", "type": "text"},
        ]
    }
)


def generated_study(
    store: Store, name: str, design: str = "scores", guess: Any = None, rubric: Rubric | None = None
) -> int:
    """A study made and generated as the Organizer does (secret random seeds), on the dummy engine."""
    prompts = [studies.PromptSpec(f"Write about {topic}.", "s", "en") for topic in ("the sea", "a city", "rain")]
    spec = StudySpec(name, prompts, methods=list(METHODS), max_new_tokens=8, guess_methods=guess, design=design, rubric=rubric)  # fmt: skip
    sid = studies.create_study(store, spec, model=STAND_IN.name)
    assert studies.generate_study(store, STAND_IN, sid, engine=DummyEngine()).opened
    return sid


def enrol(store: Store, sid: int, name: str) -> invites.Enrolment:
    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def rate_like_people(store: Store, sid: int) -> None:
    """Two raters score by what they read (a text's length), comment, can't judge once, guess the
    beam-search text by its letter, skip and flag; all through the rater's own paths."""
    for r, name in enumerate(("ann", "bo")):
        who = enrol(store, sid, name)
        for index in (1, 2, 3):
            view, _ = blind.open_item(store, name, sid, index)
            if (r, index) == (1, 3):
                blind.skip(store, name, view.item, "other", "not my field")
                blind.flag_for(store, who, view.item, None, "personal", None)
                continue
            scores = {
                x.label: {
                    "coherence": 1 + len(x.text) % 5,
                    "informativeness": blind.CANT_JUDGE if (r, index, x.label) == (0, 2, "B") else 3,
                    "naturalness": 5 - len(x.text.split()) % 5,
                }
                for x in view.responses
            }
            blind.submit(store, name, view.item, scores, {view.responses[0].label: f"{name} read it first"})
            longest = max(view.responses, key=lambda x: len(x.text)).label
            blind.guess_for(store, who, view.item, {"BS-4": longest})
            if index == 1:
                blind.flag_for(store, who, view.item, view.responses[-1].label, "broken", "=cut short")


def answer_every_type(store: Store, sid: int) -> None:
    """Two raters answer EVERY_TYPE by what they read: a scale, yes/no, a choice, a comment (and
    can't judge once), through the rater's own path."""
    for r, name in enumerate(("eve", "fay")):
        enrol(store, sid, name)
        for index in (1, 2, 3):
            view, _ = blind.open_item(store, name, sid, index)
            answers = {
                x.label: {
                    "quality": 1 + len(x.text) % 7,
                    "correct": blind.CANT_JUDGE if (r, index, x.label) == (1, 2, "A") else len(x.text) % 2,
                    # a label by its place, each label on every item: by the texts' lengths, a run whose
                    # 9 texts missed one (2.6% of runs: the seeds are secret and random) failed below
                    "error": ("ABC".index(x.label) + index) % 3,
                    "why": f"{name}: {len(x.text)} characters" if x.label != "C" else None,
                }
                for x in view.responses
            }
            blind.submit(store, name, view.item, answers)


def vote_like_people(store: Store, sid: int) -> None:
    for name in ("cy", "di"):
        who = enrol(store, sid, name)
        view, _ = pair_rating.open_for(store, who)
        while view is not None:
            a, b = len(view.text_a), len(view.text_b)
            winner = "a" if a > b else "b" if b > a else "tie"
            view, _ = pair_rating.vote_then_next(store, who, view.item, winner, ["clearer"])


def the_secret_moved(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same file in a world with other secrets: other base and blind seeds, and in every item the
    texts written by other methods (each output's identity moves to the next output's text), so every
    seed, method and answer key differs, and every letter a rater saw still shows the same text."""
    moved = [dict(r) for r in rows]
    outputs: dict[str, dict[int, dict[str, Any]]] = {}
    for r in rows:
        if r["output_id"] is not None:
            outputs.setdefault(r["item_public_id"], {})[r["output_id"]] = {c: r[c] for c in OUTPUT_IDENTITY}
    identity = {}
    for by_id in outputs.values():
        ids = sorted(by_id)
        identity |= {oid: by_id[ids[(k + 1) % len(ids)]] for k, oid in enumerate(ids)}
    for r in moved:
        r["base_seed"] += 1_000_003
        r["blind_seed"] += 7
        if r["output_id"] is not None:
            r.update(identity[r["output_id"]])
            if r["seed"] is not None:
                r["seed"] = derive_seed(r["base_seed"], r["item_public_id"], r["method"], r["sample_index"])
    positions = {
        (r["rater"], r["item_public_id"], r["method"]): r["position"] for r in moved if r["row_kind"] == "rating"
    }
    for r in moved:
        if r["row_kind"] == "guess":
            r["true_label"] = LABELS[positions[(r["rater"], r["item_public_id"], r["target_method"])]]
    return moved


def open_world(rows: list[dict[str, Any]], folder: Path) -> Store:
    """A database holding `rows` with every study open again (as it was while raters rated)."""
    folder.mkdir()
    path = folder / "world.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        export.write_export([{**r, "study_state": "open"} for r in rows], "jsonl", fh)
    store, _ = open_store("sqlite", folder)
    export.import_file(store, path)
    return store


def attempt(call: Any) -> Any:
    """What a door gives: its value, or the refusal it says."""
    try:
        return call()
    except Exception as exc:  # noqa: BLE001 - a refusal is an answer too; it must be the same in both worlds
        return f"refused: {type(exc).__name__}: {exc}"


def through_every_door(store: Store, folder: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Everything each export door gives for the store's studies: library, Organizer, CLI."""
    seen: dict[str, Any] = {}
    monkeypatch.chdir(folder)
    url = f"sqlite:///{folder / 'arena.db'}"
    ids = [s.id for s in store.list_studies()]
    assert ids
    for sid in (None, *ids):
        seen[f"export_rows {sid}"] = export.export_rows(store, sid)
        seen[f"feedback_rows {sid}"] = export.feedback_rows(store, sid)
        for fmt in export.FORMATS:
            seen[f"export_text {fmt} {sid}"] = export.export_text(store, fmt, sid)
            export.export_to_path(store, folder / f"out.{fmt}", study_id=sid)
            seen[f"export_to_path {fmt} {sid}"] = (folder / f"out.{fmt}").read_text(encoding="utf-8")
    for fmt in export.FORMATS:
        seen[f"organizer export {fmt}"] = h.export_ratings(store, fmt)
    for sid in ids:
        seen[f"vote_rows {sid}"] = attempt(lambda: pair_export.vote_rows(store, sid))
        seen[f"preference_rows {sid}"] = attempt(lambda: pair_export.preference_rows(store, sid))
        seen[f"organizer votes {sid}"] = attempt(lambda: h.export_votes(store, sid))
        seen[f"organizer pairs {sid}"] = attempt(lambda: h.export_pairs(store, sid))
    cli = [[], ["--format", "jsonl"], ["-o", "cli.csv"], ["-o", "cli.jsonl"]]
    cli += [[*how, "--study", str(sid)] for sid in ids for how in ([], ["--votes"], ["--preferences"], ["-o", "s.csv"])]
    for args in cli:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = export.main(["--database", url, *args])
        written = Path(args[args.index("-o") + 1]).read_text(encoding="utf-8") if "-o" in args else None
        seen[f"cli {' '.join(args)}"] = (code, out.getvalue(), err.getvalue(), written)
    return seen


def test_an_open_studys_exports_are_the_same_whatever_its_secrets_through_every_door(tmp_path, monkeypatch):
    made, _ = open_store("sqlite", tmp_path / "made")
    scores = generated_study(made, "Scores", guess=["BS-4"])
    rate_like_people(made, scores)
    vote_like_people(made, generated_study(made, "Pairs", design="pairwise"))
    answer_every_type(made, generated_study(made, "Every type", rubric=EVERY_TYPE))
    for s in made.list_studies():
        studies.close_study(made, s.id)
    rows = export.export_rows(made)  # closed: whole, the secrets included
    assert {r["row_kind"] for r in rows} == {"rating", "guess", "skip", "flag", "vote"}
    other = the_secret_moved(rows)
    assert all(a["method"] != b["method"] for a, b in zip(rows, other) if a["method"])  # every mapping differs
    assert {r["true_label"] for r in other if r["row_kind"] == "guess"} != {None}

    first, second = open_world(rows, tmp_path / "first"), open_world(other, tmp_path / "second")
    seen_first = through_every_door(first, tmp_path / "first", monkeypatch)
    seen_second = through_every_door(second, tmp_path / "second", monkeypatch)
    assert seen_first.keys() == seen_second.keys()
    for door, value in seen_first.items():
        assert value == seen_second[door], f"{door}: an open study's export differs with its secrets"

    # Not empty either: what raters saw and said is all there, so the organizer can follow progress.
    sealed_rows = seen_first["export_rows None"]
    assert {r["text"] for r in sealed_rows if r["row_kind"] == "rating"} == {
        r["text"] for r in rows if r["row_kind"] == "rating"
    }
    for question in ("coherence", *EVERY_TYPE.names):  # every type's answers, as the raters gave them
        given = sorted(str(r[question]) for r in rows if r.get(question) not in (None, ""))
        assert given and sorted(str(r[question]) for r in sealed_rows if r.get(question) not in (None, "")) == given
    assert {r.get("error") for r in sealed_rows} >= {"repetition", "off-topic", "none"}
    assert any(str(r.get("why")).startswith("fay: ") for r in sealed_rows)
    assert {r["guessed_label"] for r in sealed_rows if r["row_kind"] == "guess"} <= set(LABELS)
    assert [r["winner"] for r in sealed_rows if r["row_kind"] == "vote"] == [
        r["winner"] for r in rows if r["row_kind"] == "vote"
    ]

    # The control: closed, the same doors tell the two worlds apart (the comparison above can fail).
    for store in (first, second):
        for s in store.list_studies():
            studies.close_study(store, s.id)
    closed_first = through_every_door(first, tmp_path / "first", monkeypatch)
    closed_second = through_every_door(second, tmp_path / "second", monkeypatch)
    differ = {door for door in closed_first if closed_first[door] != closed_second[door]}
    pairs = next(s.id for s in first.list_studies() if s.design == "pairwise")
    assert {"export_rows None", "export_text csv None", "organizer export jsonl", "cli -o cli.csv"} <= differ
    assert {f"vote_rows {pairs}", f"organizer votes {pairs}", f"cli --votes --study {pairs}"} <= differ
    # Preferences are texts and votes only: the same in both worlds even once closed, as declared.
    assert closed_first[f"preference_rows {pairs}"] == closed_second[f"preference_rows {pairs}"]


def regenerate(row: dict[str, str]) -> set[str]:
    """The attack of issue 44, with the export's row alone: every method of the study, with the seeds
    and settings the row gives, on the public model; the methods whose text comes back word for word."""
    settings = json.loads(row["study_settings"] or "{}")
    samples = int(row["samples_per_method"] or 1)
    found = set()
    for method in json.loads(row["study_methods"]):
        for sample in range(samples):
            seeds = {int(row["seed"])} if row["seed"] else set()
            seeds.add(derive_seed(int(row["base_seed"] or 0), row["item_public_id"], method, sample))
            for seed in seeds:
                request = RunRequest(
                    row["prompt"], [method], {method: settings.get(method, {})}, int(row["max_new_tokens"]), seed,
                    row["raw"] == "True",
                )  # fmt: skip
                [result] = DummyEngine().run_methods(SimpleNamespace(name=row["study_model"]), request)
                if result.text == row["text"]:
                    found.add(method)
    return found


def test_the_regeneration_attack_recovers_nothing_from_an_open_studys_export(tmp_path):
    store, _ = open_store("sqlite", tmp_path)
    sid = generated_study(store, "Attacked", guess=["BS-4"])
    rate_like_people(store, sid)
    truth = {o.text: o.method for i in store.items(sid) for o in store.outputs_for_item(i.id)}

    def recovered() -> tuple[int, int]:
        text, _ = h.export_ratings(store, "csv")  # the Organizer's download, as the attacker had it
        rated = [r for r in csv.DictReader(io.StringIO(text)) if r["row_kind"] == "rating"]
        return sum(regenerate(r) == {truth[r["text"]]} for r in rated), len(rated)

    right, rated = recovered()
    assert rated == 15 and right == 0  # open: no text comes back, so no label
    studies.close_study(store, sid)
    right, rated = recovered()
    assert right == rated == 15  # closed: the same attack on the same rows names every method
