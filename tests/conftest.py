"""Shared fixtures, and the tiers' markers. The embedded model is loaded once per test session
(converted on first use, then read from the cache folder)."""

import sys
from pathlib import Path

import pytest

from tests.support.schedule import load_table, longest_first
from tests.support.stores import BACKENDS, open_store

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
E2E = ROOT / "tests" / "e2e"
APP_STARTERS = {("tests.support.live_app", "start_app"), ("tests.support.live_app", "shared_app")}


def starts_apps(module: object) -> bool:
    """Whether a test module imported what starts `python app.py` (read by name: importing
    tests/support/live_app.py here would make every run import Gradio)."""
    return any(
        (getattr(value, "__module__", None), getattr(value, "__name__", None)) in APP_STARTERS
        for value in vars(module).values()
    )


def tier_markers(item: pytest.Item) -> list[str]:
    """The tier markers a test gets from what it uses, so that a new test file needs no marker of its
    own (docs/testing.md, "Tiers"): `e2e` under tests/e2e/ (a browser, and the app it drives); `live`
    for those and for a module that starts `python app.py` (tests/support/live_app.py), which must not
    share the two cores with another worker (their latency bounds, the load test); `vllm` for a test
    that needs the vLLM server, started for them alone."""
    names: list[str] = []
    module = getattr(item, "module", None)
    if item.path.is_relative_to(E2E):
        names += ["e2e", "live"]
    elif module is not None and starts_apps(module):
        names.append("live")
    if "vllm_url" in getattr(item, "fixturenames", ()):
        names.append("vllm")
    return names


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in tier_markers(item):
            if item.get_closest_marker(name) is None:
                item.add_marker(name)
    # Longest files first (tests/support/schedule.py): under xdist's loadfile a long file handed out last
    # leaves the other worker idle at the end of a tier.
    items[:] = longest_first(items, load_table(), ROOT)


@pytest.fixture(scope="session")
def lm():
    from arena.model.llm import get_default_model

    return get_default_model()


@pytest.fixture(scope="session")
def lm_fp32(lm):
    """The embedded model in float32, for the checks that are float32 checks (batched perplexity
    equal to the loop within 1e-4, a shared KV cache equal to a fresh forward): in bf16 a padded or
    differently shaped batch rounds differently, by far more than those tolerances. `lm` itself,
    where the machine's default dtype is float32 already."""
    import torch

    from arena.model.llm import load_model

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
    wrong codes or passwords on purpose must not make the next test wait (arena/access/throttle.py). Tests
    of the backoff itself build their own `Backoff` or start their own app. The same for the other
    in-memory guards of issue 21."""
    yield
    throttle = sys.modules.get("arena.access.throttle")
    if throttle is not None:
        throttle.invite_codes.reset()
        throttle.organizer_password.reset()
    # A test that built the app left its store protected (arena/studies/reserved.py) and its
    # quick-study and session records in memory: the next test starts without them.
    reserved = sys.modules.get("arena.studies.reserved")
    if reserved is not None:
        reserved.protect(None)
    for module, name in (("arena.studies.quick", "per_client"), ("arena.access.sessions", "organizer")):
        held = getattr(sys.modules.get(module), name, None)
        if held is not None:
            held.reset()
