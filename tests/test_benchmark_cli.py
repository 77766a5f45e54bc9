"""The benchmark CLI: figures per method and scenario, the article's two ratios, clear errors."""

import json

import pytest

from evaluation import benchmark


def record(method, scenario, latency, tokens):
    return dict(
        method=method, scenario=scenario, latency_ms=latency, ttft_ms=latency / 10, new_tokens=tokens, peak_mem_mb=None
    )


def test_summarize_and_ratios_by_hand():
    runs = [
        record("BS-4", "qa", 1000, 10),
        record("BS-4", "qa", 3000, 10),
        record("TS-Temp", "qa", 500, 10),
        record("TS-Temp", "qa", 500, 10),
        record("TS-Tilted", "qa", 600, 10),
        record("TS-Tilted", "qa", 400, 5),
    ]
    per = {r["method"]: r for r in benchmark.summarize(runs)}
    bs = per["BS-4"]
    assert bs["latency_ms_mean"] == 2000 and bs["latency_ms_p50"] == 2000
    assert bs["latency_ms_p95"] == pytest.approx(1000 + 0.95 * 2000)
    assert bs["tokens_per_s"] == pytest.approx(20 / 4.0) and bs["new_tokens_mean"] == 10
    assert bs["ttft_ms_mean"] == 200 and bs["runs"] == 2
    r = benchmark.ratios(list(per.values()))
    assert r["sampling_over_bs4_latency"]["TS-Temp"] == pytest.approx(0.25)
    assert r["sampling_over_bs4_latency"]["TS-Tilted"] == pytest.approx(0.25)
    # time per token: TS-Tilted 1000 ms / 15 tokens, TS-Temp 1000 ms / 20 tokens
    assert r["tilted_over_temp_time_per_token"] == pytest.approx((1000 / 15) / (1000 / 20))
    assert benchmark.ratios([per["TS-Temp"]])["tilted_over_temp_time_per_token"] is None


def test_prompt_files(tmp_path):
    txt = tmp_path / "p.txt"
    txt.write_text("first prompt\n\nsecond prompt\n")
    assert [p.prompt for p in benchmark.read_prompts(str(txt))] == ["first prompt", "second prompt"]
    jl = tmp_path / "p.jsonl"
    jl.write_text('{"prompt": "Once upon a time", "scenario": "story", "raw": true}\n')
    [p] = benchmark.read_prompts(str(jl))
    assert p.raw and p.scenario == "story"
    assert [p.scenario for p in benchmark.default_prompts("en")] == ["short-qa/en", "letter/en", "sci-fi/en"]
    assert len(benchmark.default_prompts()) == 6


def test_cli_runs_and_writes_json_csv_html(tmp_path, lm, capsys):
    out = tmp_path / "out.json"
    code = benchmark.main(
        [
            "--trials",
            "1",
            "--warmup",
            "0",
            "--max-new-tokens",
            "3",
            "--language",
            "en",
            "--limit",
            "1",
            "--no-progress",
            "--json",
            str(out),
            "--csv",
            str(tmp_path / "o.csv"),
            "--html",
            str(tmp_path / "o.html"),
        ]
    )
    assert code == 0
    data = json.loads(out.read_text())
    methods = {r["method"] for r in data["per_method"]}
    assert methods == {"BS-4", "TS-Temp", "TS-Tilted"}
    assert {r["scenario"] for r in data["per_method_scenario"]} == {"short-qa/en"}
    for r in data["per_method"]:
        assert r["latency_ms_mean"] > 0 and r["new_tokens_mean"] > 0 and r["latency_ms_p95"] >= r["latency_ms_p50"]
    assert set(data["ratios"]["sampling_over_bs4_latency"]) == {"TS-Temp", "TS-Tilted", "sampling_mean"}
    assert data["ratios"]["tilted_over_temp_time_per_token"] > 0
    assert data["quality"]["BS-4"]["ppl"] > 1
    assert len(data["runs"]) == 3
    assert (tmp_path / "o.csv").read_text().startswith("method,scenario")
    assert "plotly" in (tmp_path / "o.html").read_text()
    printed = capsys.readouterr().out
    assert "TS-Tilted / TS-Temp" in printed and "/ BS-4" in printed


@pytest.mark.parametrize(
    "args, message",
    [
        (["--trials", "0"], "--trials"),
        (["--methods", "NOPE"], "unknown method"),
        (["--prompts", "/nonexistent.txt"], "not found"),
        (["--language", "fr"], "--language"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_input_is_a_clear_error(args, message, capsys):
    assert benchmark.main(args + ["--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and message in err and "Traceback" not in err
