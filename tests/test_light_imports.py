"""The floor stays light: the store, the statistics and every command line that does not generate
import neither torch nor transformers (nor, for `--help`, pandas or scipy). Each check runs in a
fresh interpreter and reads `sys.modules`, so nothing an earlier test imported can hide a heavy import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers")

# Modules that must load without the generation stack: the store, the exports, the statistics, and the
# command lines that read files (ratings, votes, guesses, answers) or print settings.
LIGHT = (
    "common.errors",
    "arena.store",
    "arena.export",
    "arena.readers",
    "arena.prompts",
    "arena.settings",
    "evaluation.human",
    "evaluation.human.stats",
    "evaluation.human.analysis",
    "evaluation.human.summary",
    "evaluation.human.cli",
    "evaluation.human.design",
    "evaluation.pairwise",
    "evaluation.pairwise.cli",
    "evaluation.blinding",
    "evaluation.tasks.__main__",
)


def loaded_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("module", LIGHT)
def test_module_loads_without_torch(module):
    loaded = loaded_after(f"import {module}")
    assert module in loaded
    heavy = [m for m in HEAVY if m in loaded]
    assert not heavy, f"import {module} loads {', '.join(heavy)}"


def test_the_store_and_the_statistics_together_load_without_torch():
    loaded = loaded_after("import arena.store, arena.export, evaluation.human, evaluation.human.stats")
    assert not [m for m in HEAVY if m in loaded]


def test_the_check_sees_a_heavy_import():
    assert "torch" in loaded_after("import decoders")


def test_human_help_answers_before_pandas_and_scipy_load():
    code = "from evaluation.human import cli\ntry:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass"
    loaded = loaded_after(code)
    assert not [m for m in ("pandas", "scipy", *HEAVY) if m in loaded]
