"""Compare's view (issue 47) without a browser: the faster engine one line away, Stop inactive until a
run is admitted, and the reader's language in the lines the server writes (the presets, the caveat).
tests/e2e/test_compare_view_e2e.py keeps what only a browser shows (where the text lands, progress)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from common import messages
from ui.compare import engine_hint
from ui.compare import handlers as h


def cpu_model(source: str = "embedded:smollm2-135m") -> SimpleNamespace:
    return SimpleNamespace(device=torch.device("cpu"), source=source)


def zh_request() -> SimpleNamespace:
    return SimpleNamespace(session_hash="view", headers={"accept-language": "zh-CN,zh;q=0.9"})


def test_the_time_line_says_how_to_get_llamacpp_where_it_would_help():
    assert engine_hint.faster_engine("transformers", "cpu", True, True) == engine_hint.INSTALLED
    assert engine_hint.faster_engine("transformers", "cpu", True, False) == engine_hint.NOT_INSTALLED
    for setup in (("llamacpp", "cpu", True, True), ("transformers", "cuda", True, True),
                  ("vllm", "cpu", True, True), ("transformers", "cpu", False, True)):  # fmt: skip
        assert engine_hint.faster_engine(*setup) == "", setup
    installed = engine_hint.hint_line(engine_hint.INSTALLED)
    assert "ARENA_ENGINE=llamacpp" in installed and "setup.sh" not in installed  # one line: the start
    missing = engine_hint.hint_line(engine_hint.NOT_INSTALLED)
    assert "bash scripts/setup.sh --llamacpp" in missing and "ARENA_ENGINE=llamacpp" in missing
    assert "ARENA_ENGINE=llamacpp" in engine_hint.hint_line(engine_hint.NOT_INSTALLED, "zh")
    assert engine_hint.hint_line("") == ""


@pytest.mark.parametrize("installed", [True, False])
def test_the_model_line_carries_the_hint_in_both_cases(monkeypatch, installed):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")  # describes no model: the line is the engine's and the hint
    monkeypatch.setattr(engine_hint, "available", lambda: installed)
    key = engine_hint.hint_for("transformers", cpu_model())
    assert key == (engine_hint.INSTALLED if installed else engine_hint.NOT_INSTALLED)
    for lang, request in (("en", SimpleNamespace(headers={})), ("zh", zh_request())):
        line = h.on_page_texts(cpu_model, [], key, request)[0]
        assert line == messages.text("engine_dummy", lang) + messages.text(key, lang)
    assert engine_hint.hint_for("transformers", cpu_model("hub:org/model")) == ""  # no GGUF: nothing to offer
    assert engine_hint.hint_for("llamacpp", cpu_model()) == ""


def test_stop_is_active_only_for_an_admitted_run():
    assert h.stop_ready(True)["interactive"] is True
    assert h.stop_ready(False)["interactive"] is False
    assert h.stop_ready()["interactive"] is False  # pressed: nothing more to stop
    run, caveat, stop = h.on_done(cpu_model, SimpleNamespace(headers={}))
    assert run["interactive"] is True and stop["interactive"] is False and caveat.startswith("*One run")


def test_the_lines_the_server_writes_follow_the_reader(monkeypatch):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    line, size_note, presets, caveat, memory, more = h.on_page_texts(cpu_model, ["Greedy"], "", zh_request())
    assert more["choices"] == [("Greedy · 常用采样方法", "Greedy")]
    assert line == messages.text("engine_dummy", "zh") and size_note == ""  # a stand-in: no size to tell
    assert memory.startswith("*内存列：*") and "峰值内存" in memory
    assert presets["info"] == messages.text("compare_presets_info", "zh")
    assert caveat.startswith("*本机上的一次运行（cpu；")
    english = h.on_page_texts(cpu_model, [], "", SimpleNamespace(headers={}))
    assert english[0] == messages.english("engine_dummy") and english[3].startswith("*One run on this machine (cpu;")


def test_the_example_tables_say_raw_in_words_of_the_reader():
    from arena.inputs.prompts import SCENARIOS
    from ui.compare import form

    zh = form.example_samples(None, SCENARIOS, "zh")
    assert [row[1] for row in zh] == ["是" if s.raw else "否" for s in SCENARIOS]
    assert [row[0] for row in zh] == [s.prompt for s in SCENARIOS]
    assert form.example_headers("zh") == ["提示词", messages.text("raw_continuation_no_chat_template", "zh")]
    assert {row[1] for row in form.example_samples(None, SCENARIOS)} == {"true", "false"}


def test_more_methods_are_grouped_and_each_has_a_hint():
    import decoders
    from ui.compare.form import more_choices

    others = [n for n in decoders.names() if n not in decoders.DEFAULT_METHODS]
    choices = more_choices(others)
    assert sorted(value for _, value in choices) == sorted(others)  # every method, once
    families = [decoders.get(value).family for _, value in choices]
    articles = [f.startswith("article-") for f in families]
    assert articles == sorted(articles, reverse=True) and any(articles) and not all(articles)  # articles first
    labels = dict((value, label) for label, value in choices)
    assert labels["Greedy"].startswith("Greedy · standard sampler: Greedy decoding")
    assert labels["TS-Warmup"].startswith("TS-Warmup · article 003: Sampling warm-up")
    assert all(len(label) < 110 for label in labels.values())
    assert more_choices(["Min-p"], "zh") == [("Min-p · 常用采样方法", "Min-p")]
