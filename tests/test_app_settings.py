"""Start-up settings read by app.py that are not model settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import app  # noqa: E402


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
    proc = subprocess.run([sys.executable, str(ROOT / "app.py"), "--port", "1"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert "ARENA_STATUS_UPDATE_RATE" in proc.stderr and "no-such-model" not in proc.stderr
