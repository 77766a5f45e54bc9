"""`python -m arena.studies`: create (generating, resumable), invite, close, publish; errors exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.store import Store
from arena.studies import __main__ as study_cli

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = study_cli.main(list(argv))
    out = capsys.readouterr()
    last = out.out.strip().splitlines()[-1] if out.out.strip() else ""
    return code, (json.loads(last) if last else None), out.err


@pytest.mark.timeout(600)
def test_create_invite_close_publish(lm, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("Name a colour.\n\nName a fruit.\n", encoding="utf-8")
    code, out, err = run(
        capsys,
        "create",
        "--name",
        "Pilot",
        "--prompts",
        str(prompts),
        "--methods",
        "TS-Temp,TS-Tilted",
        "--max-new-tokens",
        "4",
        "--database",
        db,
    )
    assert code == 0, err
    sid = out["study_id"]
    store = Store(db)
    assert store.get_study(sid).state == "open" and len(store.outputs_frame(sid)) == 4
    assert "[4/4] done" in err
    # every slow stage says so as it goes: the form check with its counts, the replay check per item
    assert "form check: 4 outputs of 2 items" in err
    steps = [line for line in err.splitlines() if line.startswith("replay check: [")]
    assert steps[0].startswith("replay check: [0/2] item 1 of 2: 2 methods again") and " s so far" in steps[0]
    assert steps[-1].startswith("replay check: [2/2] done") and len(steps) == 3
    code, again, err = run(
        capsys,
        "create",
        "--name",
        "Pilot",
        "--prompts",
        str(prompts),
        "--methods",
        "TS-Temp,TS-Tilted",
        "--max-new-tokens",
        "2",
        "--database",
        db,
    )
    assert code == 0 and again["study_id"] != sid  # an open study of that name is not a draft: a new study
    code, out, _ = run(
        capsys,
        "invite",
        "--study",
        str(sid),
        "--raters",
        "ana,ben",
        "--database",
        db,
        "--base-url",
        "https://arena.example",
    )
    assert code == 0 and [i["rater"] for i in out["invites"]] == ["ana", "ben"]
    assert out["invites"][0]["link"] == f"https://arena.example/?invite={out['invites'][0]['code']}"
    view, _ = blind.open_with_code(store, out["invites"][0]["link"])  # a pasted link works as well as the code
    assert view.total == 2
    code, _, err = run(capsys, "publish", "--study", str(sid), "--database", db)
    assert code == 2 and err.startswith("error:") and "closed" in err
    assert run(capsys, "close", "--study", str(sid), "--database", db)[1]["state"] == "closed"
    assert run(capsys, "publish", "--study", str(sid), "--database", db)[1]["state"] == "published"


@pytest.mark.timeout(600)
def test_create_resumes_a_draft_of_the_same_name(lm, tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "Say hi."}\n', encoding="utf-8")
    from arena import studies

    store = Store(db)
    sid = studies.create_study(
        store,
        StudySpec("Resumed", studies.parse_prompt_file(prompts), methods=["TS-Temp", "TS-Tilted"], max_new_tokens=3),
    )
    code, out, err = run(capsys, "create", "--name", "Resumed", "--prompts", str(prompts), "--database", db)
    assert code == 0 and out == {"study_id": sid} and "resuming" in err
    assert store.get_study(sid).state == "open"


def test_bad_input_prints_one_error_line_and_exits_2(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    for argv in (
        ["close", "--study", "99", "--database", db],
        ["invite", "--study", "99", "--raters", "a", "--database", db],
        ["create", "--name", "x", "--prompts", str(tmp_path / "missing.csv"), "--database", db],
        ["create", "--name", "BS-4 study", "--prompts", str(tmp_path / "missing.txt"), "--database", db],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out is None and err.count("error:") == 1, (argv, err)


def test_runs_as_a_module(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.studies",
            "close",
            "--study",
            "1",
            "--database",
            f"sqlite:///{tmp_path / 'a.db'}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.strip() == "error: there is no study #1"
    assert "RuntimeWarning" not in proc.stderr
