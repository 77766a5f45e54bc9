"""Prompts, outputs, study and rater names are shown as text: markup in them never runs.

Payloads go where the app shows user or model text: a study's name and prompt, the three outputs
(written straight into the database, as a model could have produced them), the rater's name (shown
back to them in "Rating as ...", and to the organizer) and comment; and a prompt typed into the
Compare tab. A real browser then visits every tab that shows
them. A payload that ran would set `window.__xss`, or leave a live <img>/<svg>/<iframe> in the page.
"""

from __future__ import annotations

import re
import secrets

from playwright.sync_api import expect

from tests.support.browser_helpers import open_app, panel, pick_option, response_text, score_all, set_number
from tests.support.live_app import ORGANIZER_PASSWORD
from tests.support.seeding import db_store, invite, publish, seed_study

PAYLOADS = [
    "<script>window.__xss = 'script'</script>",
    "<img src=x onerror=\"window.__xss='img'\">",
    "<svg onload=\"window.__xss='svg'\"></svg>",
    '"><iframe srcdoc="<script>parent.__xss=\'iframe\'</script>"></iframe>',
    "[click](javascript:window.__xss='link') **bold** $x$",
    "![tracker](http://127.0.0.1:9/pixel.png)",  # a remote image would tell its server who rates, and when
]
LIVE_MARKUP = "img[src='x'], svg[onload], iframe[srcdoc], a[href^='javascript:'], img[src*='pixel']"


def as_read(text: str) -> str:
    """What a rater reads of an output: Markdown rendered (bold is bold), everything else literal,
    and an image as its description."""
    return text.replace("**bold**", "bold").replace("![tracker](http://127.0.0.1:9/pixel.png)", "[image: tracker]")


def inert_problems(page, where: str) -> list[str]:
    """What a payload did on this page: ran script, or left live markup (even if sanitised)."""
    problems = []
    ran = page.evaluate("window.__xss")
    if ran is not None:
        problems.append(f"a payload ran on {where}: {ran!r}")
    live = panel(page).locator(LIVE_MARKUP)  # the open tab only; visited tabs stay in the page, hidden
    for i in range(live.count()):
        html = live.nth(i).evaluate(
            "e => e.outerHTML + ' inside <' + e.parentElement.tagName.toLowerCase() + '> of .' + (e.closest('.prose, .block')?.className || '?')"
        )
        problems.append(f"markup from a payload rendered on {where}: {html}")
    return problems


def test_markup_in_prompts_outputs_and_names_never_runs(page, app, artifacts_dir):
    token = secrets.token_hex(3)
    prompt = f"Prompt {token} " + " ".join(PAYLOADS)
    # every payload in some output: two each (the last output carries the link, bold and remote image)
    texts = {
        m: f"Output {m[-1]} {token} {PAYLOADS[2 * k]} {PAYLOADS[2 * k + 1]}"
        for k, m in enumerate(("BS-4", "TS-Temp", "TS-Tilted"))
    }
    study_name = f"XSS study {token} <img src=x onerror=\"window.__xss='study'\">"
    rater = f"xss-{token}<img src=x onerror=\"window.__xss='rater'\">"
    store = db_store(app.workdir)
    sid, _ = seed_study(store, study_name, [prompt], [texts])
    code = invite(store, sid, rater)
    store.dispose()
    problems: list[str] = []
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    # Rating tab: study and rater name in "Rating as ...", prompt and outputs in the responses, comment.
    open_app(page, app, "Rate (blind)")
    rate = panel(page)
    rate.get_by_label("Invite code or link").fill(code)
    rate.get_by_role("button", name="Start / continue").click()
    expect(rate.get_by_text("Item 1 of 1")).to_be_visible()
    who = rate.get_by_text(re.compile(r"^Rating as ")).inner_text()
    if who != f"Rating as {rater} in {study_name}.":  # the names exactly as given, as text
        problems.append(f"the rating tab shows the names altered: {who!r}")
    expect(rate.get_by_role("textbox", name="Prompt")).to_have_value(prompt)  # shown literally, as text
    shown = sorted(response_text(rate, label) for label in "ABC")
    assert shown == sorted(as_read(t) for t in texts.values())
    assert rate.locator(".rate-response-body strong").count() >= 1  # Markdown is rendered, not shown raw
    problems += inert_problems(page, "the rating tab")
    score_all(page, rate, 3, [3, 3, 3])
    rate.get_by_label("Comment on A (optional)").fill(PAYLOADS[1] + PAYLOADS[0])
    rate.get_by_role("button", name="Submit ratings").click()
    expect(rate.get_by_text(re.compile(r"^Saved\b"))).to_be_visible()
    problems += inert_problems(page, "the rating tab after submit")
    page.screenshot(path=str(artifacts_dir / "e2e-xss-rating.png"), full_page=True)
    store = db_store(app.workdir)
    publish(store, sid)  # rating over: closed, then published, so the Results tab shows it
    store.dispose()

    # Results tab: study name in the list and headline, rater name in the filter.
    page.get_by_role("tab", name="Results").click()
    res = panel(page)
    pick_option(page, res, "Study", re.compile(f"XSS study {token}"))
    res.get_by_label("Perplexity under the loaded model").uncheck()
    res.get_by_role("button", name="Show results").click()
    expect(res.get_by_text(re.compile(r"1 prompt · 3 ratings by 1 rater\b"))).to_be_visible(timeout=240_000)
    res.get_by_label("Raters (empty = all)").click()
    problems += inert_problems(page, "the results tab")
    page.keyboard.press("Escape")
    page.screenshot(path=str(artifacts_dir / "e2e-xss-results.png"), full_page=True)

    # Organizer: studies table, per-rater progress and the revealed mapping show names and settings.
    page.get_by_role("tab", name="Organizer").click()
    org = panel(page)
    org.get_by_label("Organizer password").fill(ORGANIZER_PASSWORD)
    org.get_by_label("Organizer password").press("Enter")
    expect(org.get_by_text("Unlocked.")).to_be_visible()
    pick_option(page, org, "Study", re.compile(f"#{sid} XSS study {token}"))
    org.get_by_role("button", name="Reveal the blind mapping").click()
    expect(org.get_by_text("Mapping shown (organizer only).")).to_be_visible()
    problems += inert_problems(page, "the organizer tab")
    page.screenshot(path=str(artifacts_dir / "e2e-xss-organizer.png"), full_page=True)

    # Compare tab: a payload typed as the prompt, run for real (one method, two tokens).
    page.get_by_role("tab", name="Compare").click()
    cmp_ = panel(page)
    cmp_.get_by_role("textbox", name="Prompt").fill(PAYLOADS[0] + PAYLOADS[1])
    for name in ("BS-4", "TS-Tilted"):
        cmp_.get_by_role("checkbox", name=name, exact=True).uncheck()
    cmp_.get_by_text("Settings", exact=True).first.click()
    set_number(page, "max_new_tokens", 2)
    cmp_.get_by_role("button", name="Run", exact=True).click()
    expect(cmp_.get_by_text("Done: 1 methods.")).to_be_visible(timeout=240_000)
    expect(cmp_.get_by_role("textbox", name="Prompt")).to_have_value(PAYLOADS[0] + PAYLOADS[1])
    problems += inert_problems(page, "the compare tab")
    assert not problems, "\n".join(problems)
    assert not dialogs, dialogs
    assert not page.js_errors, page.js_errors
