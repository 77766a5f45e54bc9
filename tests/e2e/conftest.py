"""Browser fixtures: Debian's Chromium driven by Playwright against the app on loopback.

Playwright's bundled browser download does not work here, so the tests launch the system
Chromium (`ARENA_CHROMIUM`, exported by scripts/services/chromium.sh; default its headless shell,
/usr/bin/chromium-headless-shell, else /usr/bin/chromium).
A failing test leaves a screenshot in artifacts/ next to the ones the tests save on purpose.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.browser_helpers import default_chromium
from tests.support.live_app import DUMMY_ENGINE, LiveApp, shared_app

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMEOUT_MS = 90_000  # two busy cores: a first page load can take tens of seconds
EXPECT_TIMEOUT_MS = 60_000  # `expect` waits for a state; its default 5 s is too short on a busy machine


def chromium_executable() -> str | None:
    path = os.environ.get("ARENA_CHROMIUM") or default_chromium()
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = chromium_executable()
    if path is None:
        pytest.skip(
            "no Chromium for the browser tests: run scripts/test.sh as root (it installs Debian's "
            "chromium) or `apt-get install chromium`, or set ARENA_CHROMIUM to a Chromium binary"
        )
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def dummy_app(tmp_path_factory) -> LiveApp:
    """The shared app on the dummy engine with a model's pace (`DUMMY_ENGINE`): for a browser test
    that generates but does not test what the model writes (a study's creation, Stop, progress)."""
    return shared_app(tmp_path_factory.getbasetemp(), DUMMY_ENGINE)


@pytest.fixture
def page(browser, request, artifacts_dir: Path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # for tests that assert on script errors
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            page.screenshot(path=str(artifacts_dir / f"e2e-FAILED-{name}.png"), full_page=True)
        except Exception:
            pass
    context.close()
