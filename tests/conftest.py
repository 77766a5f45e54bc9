"""Shared fixtures. The embedded model is loaded once per test session (converted on first use,
then read from the cache folder)."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ARTIFACTS = ROOT / "artifacts"


@pytest.fixture(scope="session")
def lm():
    from arena.models import get_default_model

    return get_default_model()


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
