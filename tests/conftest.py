"""Shared fixtures. The embedded model is loaded once per test session (converted on first use,
then read from the cache folder)."""

import sys
from pathlib import Path

import pytest

from tests.support.stores import BACKENDS, open_store

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"


@pytest.fixture(scope="session")
def lm():
    from arena.llm import get_default_model

    return get_default_model()


@pytest.fixture(scope="session")
def lm_fp32(lm):
    """The embedded model in float32, for the checks that are float32 checks (batched perplexity
    equal to the loop within 1e-4, a shared KV cache equal to a fresh forward): in bf16 a padded or
    differently shaped batch rounds differently, by far more than those tolerances. `lm` itself,
    where the machine's default dtype is float32 already."""
    import torch

    from arena.llm import load_model

    return lm if lm.dtype == torch.float32 else load_model(dtype="float32")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    """A fresh, empty store on SQLite and on PostgreSQL (skipped without a server). A module whose
    tests need one database only, or a store set up otherwise, defines its own `store`."""
    s, close = open_store(request.param, tmp_path)
    yield s
    close()


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """In-process handlers called without a request count as one client ("local"); a test that sends
    wrong codes or passwords on purpose must not make the next test wait (arena/throttle.py). Tests
    of the backoff itself build their own `Backoff` or start their own app. The same for the other
    in-memory guards of issue 21."""
    yield
    throttle = sys.modules.get("arena.throttle")
    if throttle is not None:
        throttle.invite_codes.reset()
        throttle.organizer_password.reset()
    # A test that built the app left its store protected (arena/studies/reserved.py) and its
    # quick-study and session records in memory: the next test starts without them.
    reserved = sys.modules.get("arena.studies.reserved")
    if reserved is not None:
        reserved.protect(None)
    for module, name in (("arena.studies.quick", "per_client"), ("arena.sessions", "organizer")):
        held = getattr(sys.modules.get(module), name, None)
        if held is not None:
            held.reset()
