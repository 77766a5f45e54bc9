"""The Compare tab's "Send these to the Rate tab" hand-off, in a real browser: one click stores the current
outputs as an ad-hoc study with an invite code for the requester, switches to the rating tab, fills
the code box and shows them blind.

The Compare tab is stood in for by the same components it hands over (button, prompt, raw
checkbox, last-results state), so the test needs no model; the rating tab is the real one.
"""

from __future__ import annotations

import os
import re
import socket
from types import SimpleNamespace

import gradio as gr
import pytest

from arena.access import invites
from arena.runs.requests import MethodResult
from arena.store import Store
from tests.support.browser_helpers import default_chromium, response_text, score_all
from ui import AppContext, rate

CHROMIUM = os.environ.get("ARENA_CHROMIUM") or default_chromium()
pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(
        not os.access(CHROMIUM, os.X_OK),
        reason="no Chromium: run scripts/test.sh as root or apt-get install chromium, or set ARENA_CHROMIUM",
    ),
]
TEXTS = ["first hidden text", "second hidden text", "third hidden text"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rate_these_blind_opens_the_outputs_in_the_rating_tab(tmp_path, browser):
    # The session's browser: a second sync_playwright() in one process is refused.

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    results = [
        MethodResult(
            method=m,
            text=t,
            new_tokens=3,
            ttft_ms=1.0,
            latency_ms=2.0,
            tokens_per_s=3.0,
            settings={"max_new_tokens": 8},
            seed=0,
            prompt_tokens=4,
        )
        for m, t in zip(("BS-4", "TS-Temp", "TS-Tilted"), TEXTS)
    ]
    ctx = AppContext(model=lambda: SimpleNamespace(name="stand-in-model"))
    ctx.extras["store"] = store
    rate.install_quick_rate(ctx)
    with gr.Blocks() as demo:
        with gr.Tabs() as tabs:
            ctx.tabs = tabs
            with gr.Tab("Compare", id="compare"):
                prompt = gr.Textbox(value="Tell me about the sea.", label="Prompt")
                raw = gr.Checkbox(value=False, label="Raw")
                last = gr.State(results)
                button = gr.Button("Send these to the Rate tab")
                ctx.extras["quick_rate"](button, prompt, raw, last)
            with gr.Tab("Rate (blind)", id="rating"):
                rate.build(ctx)
    port = _port()
    demo.queue().launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        page = browser.new_page()
        try:
            page.set_default_timeout(90_000)
            page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded")
            page.get_by_role("button", name="Send these to the Rate tab").click()
            page.get_by_text("Item 1 of 1").wait_for()  # switched, and opened with the requester's fresh code
            page.get_by_text(re.compile(r"Rating as you \(quick rating\) in Quick rating")).wait_for()
            code = page.get_by_label("Invite code or link").input_value()
            assert invites.resolve(store, code).rater == "you (quick rating)"
            shown = [response_text(page, label) for label in "ABC"]
            assert sorted(shown) == sorted(TEXTS)
            body = page.locator("body").inner_text()
            for name in ("BS-4", "TS-Temp", "TS-Tilted"):
                assert name not in body
            # the filled-in code rates: Submit saves under it
            score_all(page, page.locator("body"), 3, [4, 3, 5])
            page.get_by_role("button", name="Submit ratings").click()
            page.get_by_text(re.compile(r"You have rated all 1 items")).wait_for()
            first_study = invites.resolve(store, code).study_id
            assert len(store.ratings_frame(first_study)) == 3
            # a second click on the same run reopens the same quick study: one study per Compare run
            page.get_by_role("tab", name="Compare").click()
            page.get_by_role("button", name="Send these to the Rate tab").click()
            page.get_by_text(re.compile(r"You have rated all 1 items")).wait_for()
            again = page.get_by_label("Invite code or link").input_value()
            assert again == code and invites.resolve(store, again).study_id == first_study
        finally:
            page.close()
        adhoc = [s for s in store.list_studies() if s.kind == "adhoc"]
        assert len(adhoc) == 1 and all(s.model == "stand-in-model" for s in adhoc)
    finally:
        demo.close()
        store.dispose()
