"""The floor stays light: the store, the statistics and every command line that does not generate
import neither torch nor transformers (nor, for `--help`, pandas or scipy). The checks run in a
fresh interpreter and reads `sys.modules`, so nothing an earlier test imported can hide a heavy import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers")

# Modules that must load without the generation stack: the store, the exports, the statistics, and the
# command lines that read files (ratings, votes, guesses, answers) or print settings.
LIGHT = (
    "common.errors",
    "common.rubric",
    "arena.files.long_ratings",
    "arena.store",
    "arena.files.export",
    "arena.files.readers",
    "arena.inputs.prompts",
    "arena.settings",
    "evaluation.human",
    "evaluation.human.stats",
    "evaluation.human.analysis",
    "evaluation.human.summary",
    "evaluation.human.cli",
    "evaluation.human.design",
    "evaluation.human.quality",
    "evaluation.human.ratings",
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


def first_heavy(modules: tuple[str, ...]) -> dict[str, list[str]]:
    """Import `modules` one after another in one fresh interpreter; {module: heavy modules loaded by the
    time it was imported}. One interpreter for all (each costs a second or two); the first module that
    brings in torch is the one named."""
    code = (
        "import importlib, json, sys\n"
        f"seen = {{}}\nfor name in {list(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        f"    seen[name] = [m for m in {list(HEAVY)!r} if m in sys.modules]\n"
        "print(json.dumps(seen))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_the_store_the_statistics_and_the_file_clis_load_without_torch():
    seen = first_heavy(LIGHT)
    assert list(seen) == list(LIGHT)
    heavy = {name: mods for name, mods in seen.items() if mods}
    assert not heavy, f"the first module that loads the generation stack: {next(iter(heavy))} ({heavy})"


def test_the_check_sees_a_heavy_import():
    seen = first_heavy(("arena.store", "decoders"))
    assert seen["arena.store"] == [] and "torch" in seen["decoders"]


def test_human_help_answers_before_pandas_and_scipy_load():
    code = "from evaluation.human import cli\ntry:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass"
    loaded = loaded_after(code)
    assert not [m for m in ("pandas", "scipy", *HEAVY) if m in loaded]
