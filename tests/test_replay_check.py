"""The replay check (evaluation/replay_check.py, issue 32 route 7): before raters come, which methods
anyone with the public model reproduces word for word, run for real on the embedded model."""

from __future__ import annotations

import json

import pytest

from arena.inputs.prompts import PromptSpec
from arena.rating.study_spec import StudySpec
from arena.store import Store
from arena.studies import create_study, generate_study
from evaluation import replay_check
from tests.support.stores import sqlite_url

PROMPTS = ["Name a colour of the sea.", "Give one word for a quiet morning."]


@pytest.fixture
def study(lm, tmp_path):
    store = Store(sqlite_url(tmp_path))
    sid = create_study(
        store,
        StudySpec(
            "Replay pilot", [PromptSpec(p) for p in PROMPTS], methods=["BS-4", "Greedy", "TS-Temp"], max_new_tokens=6
        ),
        model=lm.name,
        lm=lm,
    )
    generate_study(store, lm, sid)
    yield store, sid
    store.dispose()


def test_deterministic_methods_replay_and_a_secretly_seeded_one_does_not(study, lm):
    store, sid = study
    report = replay_check.check_study(store, sid, lm)
    by_method = {m.method: m for m in report.methods}
    assert by_method["BS-4"].replayable and by_method["Greedy"].replayable
    assert by_method["BS-4"].checked == len(PROMPTS)
    assert not by_method["TS-Temp"].replayable
    assert report.public  # the embedded model is in a PyPI wheel
    lines = report.lines()
    assert any(line.startswith("BS-4: REPLAYABLE: 2 of 2") for line in lines)
    assert "rating-only deployment" in lines[-1] and "blinding question" in lines[-1]


def test_a_study_whose_every_method_is_seeded_needs_no_remedy(lm, tmp_path):
    store = Store(sqlite_url(tmp_path))
    sid = create_study(
        store,
        StudySpec("Sampled pilot", [PromptSpec(PROMPTS[0])], methods=["TS-Temp", "TS-Tilted"], max_new_tokens=8),
        lm=lm,
    )
    generate_study(store, lm, sid)
    report = replay_check.check_study(store, sid, lm)
    assert not any(m.replayable for m in report.methods) and not report.lines()[-1].startswith("What to do")
    store.dispose()


def test_the_cli_reports_it_as_json(study, lm, capsys, tmp_path):
    from arena.studies.__main__ import main

    store, sid = study
    assert main(["replay-check", "--study", str(sid), "--database", sqlite_url(tmp_path)]) == 0
    printed = capsys.readouterr()
    out = json.loads(printed.out)
    assert out["methods"]["Greedy"] == {"checked": 2, "identical": 2} and out["public_model"] is True
    assert "replay check: [1/2] item 2 of 2: 3 methods again" in printed.err  # progress on stderr, per item
    assert main(["replay-check", "--study", "999", "--database", sqlite_url(tmp_path)]) == 2


def test_a_local_model_file_is_not_called_public(tmp_path):
    local = tmp_path / "mine.gguf"
    local.write_bytes(b"GGUF")
    assert not replay_check.public_model(str(local))
    assert replay_check.public_model("smollm2-135m") and replay_check.public_model("gemma-3-270m@int8")
