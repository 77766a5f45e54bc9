"""`python -m evaluation.tasks`: scoring given answers, the benchmark's cells (Wilson intervals over
samples and seeds, deterministic methods once), a real run through the runner, and every bad input
as one `error:` line with exit code 2."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from arena.model import llm
from arena.runs.requests import MethodResult
from evaluation.tasks import TASKS, bench
from evaluation.tasks import __main__ as cli
from evaluation.tasks.stats import wilson

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, lines: list[str], name: str = "answers.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_answers_are_scored_in_the_files_order(tmp_path, capsys):
    path = write(
        tmp_path,
        [
            json.dumps({"task": "math-cylinder", "text": "24π + 30 ≈ 105.40 cm²"}),
            "",
            json.dumps({"task": "summary-paper", "text": "Too short."}),
            json.dumps({"task": "math-cylinder", "text": "91.23 cm²", "language": "zh"}),
        ],
    )
    code, out, _ = run_cli(capsys, "--answers", path, "--json")
    assert code == 0
    answers = json.loads(out)["answers"]
    assert [(a["task"], a["success"]) for a in answers] == [
        ("math-cylinder", True),
        ("summary-paper", False),
        ("math-cylinder", False),
    ]
    assert all(set(a) == {"task", "success", "reason"} for a in answers) and "13.4% off" in answers[2]["reason"]
    code, out, _ = run_cli(capsys, "--answers", path)
    assert code == 0 and out.splitlines()[0].startswith("1\tmath-cylinder\tpass\t")


@pytest.mark.parametrize(
    "lines,message",
    [
        (["not json"], "line 1: not valid JSON"),
        (['["task", "text"]'], "line 1: expected an object"),
        (['{"text": "x"}'], "line 1: no 'task' field"),
        (['{"task": "math-cylinder"}'], "line 1: no 'text' field"),
        (
            ['{"task": "math-cylinder", "text": "1"}', '{"task": "poetry", "text": "x"}'],
            "line 2: unknown task 'poetry'",
        ),
        (['{"task": "code-indices", "text": 42}'], "line 1: 'text' must be a string"),
        ([""], "holds no answers"),
    ],
)
def test_bad_answer_files_print_one_error_line_and_exit_2(tmp_path, capsys, lines, message):
    code, out, err = run_cli(capsys, "--answers", write(tmp_path, lines), "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: ") and message in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--answers", "/nonexistent/answers.jsonl"], "not found"),
        (["--samples", "two"], "invalid whole number value"),
        (["--samples", "0", "--methods", "Greedy"], "--samples must be at least 1"),
        (["--methods", "Greedy,Nope"], "unknown method 'Nope'"),
        (["--methods", "Greedy,Greedy"], "listed twice"),
        (["--methods", " , "], "at least one method"),
        (["--tasks", "poetry"], "unknown task 'poetry'"),
        (["--language", "fr"], "--language must be en, zh or all"),
        (["--max-new-tokens", "5000"], "between 1 and 1024"),
        (["--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_print_one_error_line_and_exit_2_before_any_model_loads(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(llm, "get_default_model", lambda: pytest.fail("a model was loaded"))
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own errors exit through the parser
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_answers_refuse_generation_flags(tmp_path, capsys):
    path = write(tmp_path, [json.dumps({"task": "math-cylinder", "text": "1"})])
    code, _, err = run_cli(capsys, "--answers", path, "--samples", "3", "--methods", "Greedy")
    assert code == 2 and "drop --methods, --samples" in err


def test_the_module_runs_as_a_command(tmp_path):
    """One real `python -m` start (the exit-2 paths are checked in process above)."""
    path = write(tmp_path, [json.dumps({"task": "math-cylinder", "text": "105.4 cm²"})])
    done = subprocess.run(
        [sys.executable, "-m", "evaluation.tasks", "--answers", path, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answers"][0]["success"] is True


def test_write_prompts_makes_a_study_prompt_file(tmp_path, capsys):
    from arena.inputs.prompts import read_prompt_file

    path = tmp_path / "tasks.jsonl"
    code, _, err = run_cli(
        capsys, "--write-prompts", str(path), "--tasks", "math-cylinder,summary-paper", "--language", "en"
    )
    assert code == 0 and "wrote 2 prompts" in err
    specs = read_prompt_file(path)
    assert [(s.scenario, s.language) for s in specs] == [("math-cylinder", "en"), ("summary-paper", "en")]


# -- the benchmark's cells ----------------------------------------------------------------------------


def test_wilson_interval():
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(3, 6) == pytest.approx((0.1876, 0.8124), abs=1e-4)
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_plan_runs_deterministic_methods_once_and_the_preset_per_task():
    calls = bench.plan(
        [TASKS["math-cylinder"], TASKS["code-indices"]], ["preset", "Greedy", "Math-Arms"], ["en"], 3, 10
    )
    assert [(t.id, seed, names) for t, _, seed, names in calls] == [
        ("math-cylinder", 10, ["Math-Arms", "Greedy"]),
        ("math-cylinder", 11, ["Math-Arms"]),
        ("math-cylinder", 12, ["Math-Arms"]),
        ("code-indices", 10, ["Code-Stabilizer", "Greedy", "Math-Arms"]),
        ("code-indices", 11, ["Code-Stabilizer", "Math-Arms"]),
        ("code-indices", 12, ["Code-Stabilizer", "Math-Arms"]),
    ]


def _fake_result(method: str, text: str) -> MethodResult:
    return MethodResult(method, text, 7, 1.0, 100.0 if method == "Greedy" else 300.0, 70.0, {}, 0, 5)


def test_cells_pool_samples_and_languages_with_failure_reasons(monkeypatch):
    answers = iter(["105.4 cm²", "91.23 cm²", "no idea", "24π + 30", "122.46 cm²", "105.40"])

    def fake_generate(lm, prompt, methods, seed, max_new_tokens):
        assert max_new_tokens == 256  # the task's default
        return [_fake_result(m, "91.23 cm²" if m == "Greedy" else next(answers)) for m in methods]

    monkeypatch.setattr(bench, "generate", fake_generate)
    runs = bench.run(None, [TASKS["math-cylinder"]], ["preset", "Greedy"], ["zh", "en"], 3)
    cells = {c["method"]: c for c in bench.summarize(runs)}
    arms = cells["Math-Arms"]
    assert (arms["successes"], arms["checked"], arms["preset"]) == (3, 6, True)
    assert arms["ci95"] == pytest.approx(list(wilson(3, 6))) and arms["by_language"] == {"zh": "1/3", "en": "2/3"}
    assert {f["kind"]: f["count"] for f in arms["failures"]} == {"wrong value": 2, "no number": 1}
    assert arms["latency_ms_mean"] == 300.0 and arms["new_tokens_mean"] == 7.0 and arms["distinct_outputs"] == 6
    greedy = cells["Greedy"]
    assert (greedy["successes"], greedy["checked"], greedy["distinct_outputs"]) == (0, 2, 1)
    assert "13.4% off" in greedy["failures"][0]["example"]
    assert "Math-Arms *" in bench.table(bench.summarize(runs))


def test_a_real_run_through_the_runner(lm, monkeypatch, capsys):
    monkeypatch.setattr(llm, "get_default_model", lambda: lm)
    code, out, err = run_cli(
        capsys,
        "--methods",
        "preset,Greedy",
        "--tasks",
        "math-cylinder,code-indices",
        "--language",
        "en",
        "--samples",
        "2",
        "--max-new-tokens",
        "6",
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    cells = {(c["method"], c["task"]): c for c in data["cells"]}
    assert set(cells) == {
        ("Math-Arms", "math-cylinder"),
        ("Greedy", "math-cylinder"),
        ("Code-Stabilizer", "code-indices"),
        ("Greedy", "code-indices"),
    }
    assert cells[("Math-Arms", "math-cylinder")]["runs"] == 2 and cells[("Greedy", "code-indices")]["runs"] == 1
    assert all(r["new_tokens"] <= 6 and r["verdict"]["reason"] for r in data["runs"])
    assert data["config"]["seeds"].startswith("0..1") and "load_average_at_start" in data["config"]
    assert "Math-Arms *" in err  # the table goes to stderr with --json
