"""Start-up settings read by app.py that are not model settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import app
from arena import settings

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("value, expected", [(None, 2.0), ("auto", "auto"), (" 0.5 ", 0.5), ("10", 10.0)])
def test_status_update_rate_accepts_seconds_or_auto(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("ARENA_STATUS_UPDATE_RATE", raising=False)
    else:
        monkeypatch.setenv("ARENA_STATUS_UPDATE_RATE", value)
    assert app.status_update_rate() == expected


@pytest.mark.parametrize("value", ["", "fast", "0", "-1", "nan"])
def test_status_update_rate_refuses_the_rest(monkeypatch, capsys, value):
    monkeypatch.setenv("ARENA_STATUS_UPDATE_RATE", value)
    with pytest.raises(SystemExit) as exc:
        app.status_update_rate()
    assert exc.value.code == 2 and "ARENA_STATUS_UPDATE_RATE" in capsys.readouterr().err


def test_a_bad_rate_stops_the_app_before_the_model_loads():
    env = {**os.environ, "ARENA_STATUS_UPDATE_RATE": "soon", "ARENA_MODEL": str(ROOT / "no-such-model.gguf")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "app.py"), "--port", "1"], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert "ARENA_STATUS_UPDATE_RATE" in proc.stderr and "no-such-model" not in proc.stderr


# ---- arena/settings.py: the one table of settings ----------------------------------------------------


def test_the_readme_table_is_the_settings_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Settings\n", 1)[1]
    lines = []  # the first table after the heading, up to its first non-table line
    for line in section[section.index("| setting") :].splitlines():
        if not line.startswith("|"):
            break
        lines.append(line)
    assert "\n".join(lines) == settings.markdown_table()


def test_no_module_reads_the_environment_but_the_settings_module():
    allowed = {"arena/settings.py"}
    found = []
    for folder in ("arena", "evaluation", "ui", "serving", "decoders"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if rel not in allowed and ("os.environ" in text or "getenv" in text):
                found.append(rel)
    app_reads = [line for line in (ROOT / "app.py").read_text(encoding="utf-8").splitlines() if "os.environ" in line]
    # app.py: the flags and the environment go to settings.load; the one raw read decides whether
    # `spaces` is imported before any project module (and so torch) is.
    assert app_reads == [
        'if os.environ.get("SPACES_ZERO_GPU"):',
        "        config = settings.load(sys.argv[1:] if argv is None else argv, os.environ)",
    ]
    assert not found, f"read os.environ outside arena/settings.py: {found}"


def test_every_environment_variable_is_declared_once():
    envs = [f.metadata["env"] for f in settings.FIELDS]
    assert len(envs) == len(set(envs)) == len(settings.FIELDS)
    assert all(f.metadata["help"] for f in settings.FIELDS)


def test_flags_win_over_the_environment_which_wins_over_defaults():
    env = {
        "ARENA_MODEL": "from-env",
        "ARENA_PORT": "9000",
        "GRADIO_SERVER_NAME": "0.0.0.0",
        "ARENA_COMPARE_MAX_TOKENS": " ",
        "ARENA_AUTH_FREE_ATTEMPTS": "3",
    }
    s = settings.load(["--model", "from-flag", "--port", "7861"], env)
    assert (s.model, s.port, s.host) == ("from-flag", 7861, "0.0.0.0")
    assert s.compare_max_tokens == 2048  # blank: the default
    assert s.auth_free_attempts == 3 and s.cache_dir == "" and s.mode == "full"
    assert settings.load([], {"ARENA_HOST": "h", "GRADIO_SERVER_NAME": "g"}).host == "h"
    assert settings.load(None, {}) == settings.Settings()


@pytest.mark.parametrize(
    "env, message",
    [
        ({"ARENA_PORT": "http"}, "ARENA_PORT must be a whole number"),
        ({"ARENA_COMPARE_MAX_TOKENS": "0"}, "ARENA_COMPARE_MAX_TOKENS must be at least 1"),
        ({"ARENA_VLLM_TIMEOUT": "-1"}, "ARENA_VLLM_TIMEOUT must be a number > 0"),
        ({"ARENA_AUTH_FREE_ATTEMPTS": "2.5"}, "ARENA_AUTH_FREE_ATTEMPTS must be a whole number"),
    ],
)
def test_a_number_that_cannot_be_read_is_refused_with_its_name(env, message):
    with pytest.raises(settings.SettingError, match=message):
        settings.load([], env)


def test_current_follows_the_environment_until_settings_are_installed(monkeypatch):
    monkeypatch.setenv("ARENA_MODE", "rating")
    assert settings.current().mode == "rating"
    monkeypatch.setenv("ARENA_MODE", "full")
    assert settings.current().mode == "full"
    installed = settings.load(["--model", "m"], {"ARENA_MODE": "rating"})
    settings.install(installed)
    try:
        monkeypatch.setenv("ARENA_MODE", "full")
        assert settings.current() is installed  # read once: the environment no longer matters
        with settings.override(mode="full") as changed:
            assert settings.current() is changed and changed.model == "m"
        assert settings.current() is installed
    finally:
        settings.install(None)


def test_app_does_not_write_its_flags_into_the_environment(monkeypatch):
    monkeypatch.delenv("ARENA_MODEL", raising=False)
    seen = {}

    def stop(*args, **kwargs):
        seen["model"] = settings.current().model
        raise SystemExit(3)

    monkeypatch.setattr("arena.model.llm.get_default_model", stop)
    try:
        with pytest.raises(SystemExit):
            app.main(["--model", str(ROOT / "some-model.gguf"), "--port", "1"])
    finally:
        settings.install(None)
    assert seen["model"] == str(ROOT / "some-model.gguf")
    assert "ARENA_MODEL" not in os.environ


def test_a_bad_number_stops_the_app_before_the_model_loads():
    env = {**os.environ, "ARENA_COMPARE_MAX_TOKENS": "lots", "ARENA_MODEL": str(ROOT / "no-such-model.gguf")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "app.py"), "--port", "1"], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert "ARENA_COMPARE_MAX_TOKENS must be a whole number" in proc.stderr and "no-such-model" not in proc.stderr
