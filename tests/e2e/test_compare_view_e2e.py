"""Compare shows its answers (issue 47), in a real browser at 1280×800 and on a 390×844 phone: the
example tables are folded away, nothing scrolls sideways, Stop is inactive until Run, and after Run
the first streamed text is on screen (the page brings it there), with the run's progress drawn once
and none of Gradio's timer text. Fails on the old layout: the outputs started ~1,560 px down at
1280×800, a phone's Run was ~3,500 px down and the examples overflowed sideways; four progress bars.

The app runs the dummy engine (ARENA_ENGINE=dummy): where the text appears is tested, not what it says.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

import decoders
from tests.e2e.conftest import TIMEOUT_MS
from tests.support.live_app import DUMMY_FAST, LiveApp, shared_app

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}

# Every progress bar or timer Gradio draws while the run goes, counted at each change of the page:
# the most seen at once, and whether any timer text ("0.3s", "processing | 0.1/0.1s") was visible.
# (Before issue 47, even with the dummy engine: three or four trackers, one per output, with timers.)
WATCH_PROGRESS = """() => {
  window.__bars = 0; window.__timers = [];
  const seen = (e) => e.offsetParent !== null && e.getBoundingClientRect().height > 0;
  const count = () => {
    // a status tracker Gradio shows (pending or generating) lacks its "hide" class
    const bars = [...document.querySelectorAll('.eta-bar, .progress-bar, .wrap.default:not(.hide), '
                                               + '.wrap.minimal:not(.hide)')].filter(seen);
    window.__bars = Math.max(window.__bars, bars.length);
    document.querySelectorAll('.progress-text, .meta-text, .meta-text-center').forEach((e) => {
      if (seen(e) && e.innerText.trim()) window.__timers.push(e.innerText.trim());
    });
  };
  new MutationObserver(count).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                      characterData: true});
}"""


@pytest.fixture(scope="module")
def dummy_app(tmp_path_factory) -> LiveApp:
    """The shared app on the undelayed dummy engine (tests/test_python_api_live.py's too)."""
    return shared_app(tmp_path_factory.getbasetemp(), DUMMY_FAST)


def open_compare(browser, app: LiveApp, size: tuple[int, int], locale: str = "en-US"):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app.url, wait_until="domcontentloaded")
    page.locator("#compare-run").wait_for()
    page.locator("#compare-estimate p").first.wait_for()  # the page's load events have answered
    return context, page


def scroll_width(page) -> dict:
    return page.evaluate("() => ({scroll: document.scrollingElement.scrollWidth, view: window.innerWidth})")


@pytest.mark.parametrize("size", list(SIZES), ids=list(SIZES))
def test_after_run_the_first_streamed_text_is_on_screen(browser, dummy_app, artifacts_dir, size):
    context, page = open_compare(browser, dummy_app, SIZES[size])
    try:
        widths = scroll_width(page)
        assert widths["scroll"] <= widths["view"], f"the page scrolls sideways: {widths}"
        expect(page.locator("#compare-examples")).to_be_hidden()  # folded away under "Examples"
        page.locator("#compare-examples-box").get_by_text("Examples", exact=False).first.click()
        expect(page.locator("#compare-examples")).to_be_visible()
        widths = scroll_width(page)
        assert widths["scroll"] <= widths["view"], f"the open example tables scroll sideways: {widths}"
        page.locator("#compare-examples-box").get_by_text("Examples", exact=False).first.click()
        stop = page.locator("#compare-stop")
        expect(stop).to_be_disabled()  # nothing runs: nothing to stop

        page.get_by_role("textbox", name="Prompt").fill("The harbour at dawn was")
        page.evaluate("window.scrollTo(0, 0)")
        page.evaluate(WATCH_PROGRESS)
        page.locator("#compare-run").click()
        first = page.locator("#compare-outputs textarea").first  # the first method to run (sampling first)
        expect(first).not_to_have_value("", timeout=120_000)
        expect(page.locator("#compare-status")).to_contain_text("Done: 3 methods", timeout=120_000)
        box = first.bounding_box()
        height = SIZES[size][1]
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (
            f"the first streamed text is off screen at {SIZES[size]}: {box}"
        )
        page.screenshot(path=str(artifacts_dir / f"e2e-compare-after-run-{size}.png"))
        assert page.evaluate("window.__bars") <= 1, "the run's progress was drawn more than once"
        assert page.evaluate("window.__timers") == [], "Gradio's timer text was shown"
        expect(stop).to_be_disabled()  # the run ended: Stop is off again
        widths = scroll_width(page)
        assert widths["scroll"] <= widths["view"], f"the page scrolls sideways after the run: {widths}"
    finally:
        context.close()


def test_stop_is_active_while_a_run_is_admitted(browser, dummy_app):
    """Stop turns on with an admitted run and off when it is pressed or the run ends; a refused run
    (an empty prompt) never turns it on."""
    context, page = open_compare(browser, dummy_app, SIZES["laptop"])
    try:
        stop = page.locator("#compare-stop")
        page.locator("#compare-run").click()  # empty prompt: refused by Run
        expect(page.locator("#compare-status")).to_contain_text("the prompt is empty")
        expect(stop).to_be_disabled()
        page.evaluate(
            """() => { window.__stopOn = false; const b = document.querySelector('#compare-stop');
            new MutationObserver(() => { if (!b.disabled) window.__stopOn = true; })
              .observe(b, {attributes: true}); }"""
        )
        page.get_by_role("textbox", name="Prompt").fill("A lighthouse keeper")
        page.locator("#compare-run").click()
        expect(page.locator("#compare-status")).to_contain_text("Done: 3 methods", timeout=120_000)
        expect(stop).to_be_disabled()
        assert page.evaluate("window.__stopOn"), "Stop never became active during the run"
    finally:
        context.close()


# Names and numbers a Chinese page keeps: methods, models, settings, commands, units.
NAMES_KEPT = {
    "ARENA_ENGINE", "dummy", "CPU", "cpu", "GPU", "RSS", "PyTorch", "MiB", "Linux", "Gradio", "API", "token",
    "python", "m", "evaluation.benchmark", "docs/tasks.md", "SmolLM2-135M-Instruct", "n/a", "T", "λ",
}  # fmt: skip


def english_words(text: str, kept: set[str]) -> list[str]:
    """The Latin-letter words of `text` that are neither a kept name nor part of one (a unit after a
    number, "135M", is part of the number)."""
    words = re.findall(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z0-9_./-]*", text)
    return sorted({w for w in words if w.strip(".-/") not in kept})


def test_compare_in_chinese_leaves_no_english_but_names(browser, dummy_app, artifacts_dir):
    """Issue 47: the model line, the small model's note, the example tables' headers and their true/false
    cells, the presets line, "Run blind", the timing caveat and the memory note, all in Chinese."""
    context, page = open_compare(browser, dummy_app, SIZES["laptop"], locale="zh-CN")
    kept = NAMES_KEPT | set(decoders.names())
    try:
        expect(page.locator("#compare-model-line")).to_contain_text("引擎")
        expect(page.locator("#compare-timing-caveat")).to_contain_text("本机上的一次运行")
        page.locator("#compare-examples-box").get_by_text("示例", exact=False).first.click()
        tables = page.locator("#compare-examples, #compare-task-examples")
        expect(tables.locator("th").first).to_have_text("提示词")
        cells = tables.locator("td").all_inner_texts()
        assert "是" in cells and "否" in cells and not {"true", "false"} & set(cells), cells
        headers = " ".join(tables.locator("th").all_inner_texts())
        assert english_words(headers, kept) == [], headers
        page.screenshot(path=str(artifacts_dir / "e2e-compare-zh.png"), full_page=True)
        # the example prompts are the article's own texts, some in English: read the page without them
        page.locator("#compare-examples-box").get_by_text("示例", exact=False).first.click()
        expect(tables.first).to_be_hidden()
        left = english_words(page.inner_text("body"), kept)
        assert left == [], f"English left on Compare in Chinese: {left}"
    finally:
        context.close()
