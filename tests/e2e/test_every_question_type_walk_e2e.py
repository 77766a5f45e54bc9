"""Every question type from creation to re-import, in a real browser (issue 46): the organizer types a
rubric with a 1-7 scale, a yes/no, a choice among three labels, a comment and a 1-10 scale after the
comment into the Organizer's rubric box; two invited raters answer every question of every response
through the Rate tab, one by clicking (she goes back to an item, finds every answer as she left it,
the comments and the 1-10 after them included, and changes one), the other by digit keys alone on
every row (a 10 as "1" then "0"; his comments typed in their boxes after the digits); the study's export
while it is open carries the answers and none of the sealed columns; the organizer closes and
publishes it, and Results shows each type's analysis (the scale's and the yes/no's means, the yes/no
as a share of yes, the choice's counts and its chi-square, the comments listed as written) and
/present the numeric table. Then the published export: one column per question with the raters'
answers as they gave them, never a column no file may carry; the organizer deletes the study (the
danger zone) and imports the downloaded file through the Organizer's Import, and the re-imported
study's Results and /present say what the original's said.

The raters' answers depend on which method wrote the response (the test reads the texts' methods
from the store; the raters only see the texts), so every number asserted is worked out from PLAN.
The app is its own (its export covers every study, so no other test's study may be in it), on the
dummy engine at a model's pace (live_app.DUMMY_ENGINE): what the outputs say is not tested.
"""

from __future__ import annotations

import csv
import io
import json
import re
import secrets
from collections import Counter
from pathlib import Path
from statistics import mean

import pytest
from playwright.sync_api import expect
from scipy import stats

from arena.files.export import ALL_COLUMNS, SEALED_COLUMNS
from arena.files.export_columns import CATALOGUE
from tests.support.browser_helpers import open_app, panel, pick_option, response_text
from tests.support.live_app import DUMMY_ENGINE, ORGANIZER_PASSWORD, start_app
from tests.support.seeding import db_store

GENERATION_TIMEOUT_MS = 240_000
RESULTS_TIMEOUT_MS = 240_000
METHODS = ("TS-Temp", "TS-Tilted")  # the form's third (BS-4) is unticked: two methods, short generation
PROMPTS = ("Say hello to a friend.", "Name a fruit.")
LABELS = ("repetition", "off-topic", "factual")
RUBRIC = {
    "dimensions": [
        {"name": "style", "low": 1, "high": 7, "description": "How well is it written?"},
        {"name": "correct", "type": "yes-no", "description": "Is it factually correct?"},
        {"name": "error", "type": "choice", "labels": list(LABELS), "description": "Which error?"},
        {"name": "why", "type": "text", "description": "What made you decide?"},
        # a scale after the comment: its row comes after the comment's hidden one (commit e048049)
        {"name": "overall", "low": 1, "high": 10, "description": "All in all?"},
    ]
}
QUESTIONS = ("style", "correct", "error", "why", "overall")
# rater -> prompt -> method -> (style, yes/no, choice, comment or None, overall): what each rater
# answers. ben answers by keys: his 10s are "1" then "0", his 1 waits for a second digit that
# never comes (then the next row's digit, or the 700 ms, moves on).
PLAN: dict[str, dict[str, dict[str, tuple]]] = {
    "ana": {
        PROMPTS[0]: {"TS-Temp": (6, "Yes", "factual", "ana: right, and warm", 9), "TS-Tilted": (2, "No", "repetition", "ana: says it twice", 3)},
        PROMPTS[1]: {"TS-Temp": (7, "Yes", "factual", None, 10), "TS-Tilted": (3, "No", "repetition", None, 2)},
    },
    "ben": {
        PROMPTS[0]: {"TS-Temp": (5, "Yes", "off-topic", None, 10), "TS-Tilted": (1, "Yes", "repetition", None, 1)},
        PROMPTS[1]: {"TS-Temp": (6, "No", "factual", None, 8), "TS-Tilted": (3, "No", "repetition", "ben: loops", 10)},
    },
}  # fmt: skip
# ana goes back to the first prompt and changes TS-Tilted's style from 2 to 4 (her comments stay).
CHANGE = ("ana", PROMPTS[0], "TS-Tilted", 4)
BY_KEYS = "ben"  # answers every row by digit keys alone
PER_RESPONSE = 4  # rows on screen per response: the 1-7, the yes/no, the choice, the 1-10 (the comment is its box)


def final_plan() -> dict[str, dict[str, dict[str, tuple]]]:
    """PLAN with CHANGE applied: the answers the store should end with."""
    plan = json.loads(json.dumps(PLAN))
    rater, prompt, method, style = CHANGE
    plan[rater][prompt][method][0] = style
    return {r: {p: {m: tuple(a) for m, a in by.items()} for p, by in items.items()} for r, items in plan.items()}


def answers_by_method(plan: dict) -> dict[str, list[tuple]]:
    return {m: [by[m] for items in plan.values() for by in items.values()] for m in METHODS}


@pytest.fixture(scope="module")
def walk_app(tmp_path_factory):
    """An app of this file's own: its export covers every study of its store."""
    app = start_app(tmp_path_factory.mktemp("question-walk"), DUMMY_ENGINE)
    yield app
    app.stop()


def grid_rows(grid) -> list[list[str]]:
    """A table's header and rows as the page shows them (cell texts): an HTML table's, or a Gradio
    Dataframe's (its rows are role=row elements; its body's own header row is empty)."""
    return grid.evaluate(
        """el => {
            const rows = el.querySelectorAll('[role=row]').length ? el.querySelectorAll('[role=row]')
                : el.querySelectorAll('tr');
            return Array.from(rows).map(r =>
                Array.from(r.querySelectorAll('[role=columnheader], [role=gridcell], th, td'))
                    .map(c => c.innerText.trim()))
                .filter(r => r.some(c => c));
        }"""
    )


def as_dicts(rows: list[list[str]]) -> dict[str, dict[str, str]]:
    """{first cell: {column: cell}} of a table's rows under its header."""
    head, *body = rows
    return {r[0]: dict(zip(head, r)) for r in body}


# ---- the organizer -----------------------------------------------------------------------------------


def create_study(page, app, name: str) -> int:
    open_app(page, app, "Organizer")
    org = panel(page)
    org.get_by_label("Organizer password").fill(ORGANIZER_PASSWORD)
    org.get_by_label("Organizer password").press("Enter")
    expect(org.get_by_text("Unlocked.")).to_be_visible()
    org.get_by_label("Study name").fill(name)
    org.get_by_label("Pasted prompts (one per line)").fill("\n".join(PROMPTS))
    org.get_by_label("BS-4", exact=True).uncheck()
    org.get_by_label("max_new_tokens").fill("8")  # 4 to 8 words: two methods' texts differ (checked)
    org.get_by_label("max_new_tokens").blur()
    org.get_by_text("Questions and rater quality control (optional)").click()
    box = org.get_by_label("Rubric (JSON")
    box.fill(json.dumps(RUBRIC))
    box.blur()
    preview = org.locator("#organizer-rubric-preview")  # what raters will be asked, one row per question
    expect(preview).to_contain_text("1-7 (7 points)")
    assert grid_rows(preview) == [
        ["question", "scale", "what to judge", "anchors"],
        ["style", "1-7 (7 points)", "How well is it written?", "–"],
        ["correct", "yes/no", "Is it factually correct?", "–"],
        ["error", "one of 3", "Which error?", " · ".join(LABELS)],
        ["why", "comment", "What made you decide?", "–"],
        ["overall", "1-10 (10 points)", "All in all?", "–"],
    ]
    expect(page.locator("#organizer-preview")).to_contain_text("2 prompts × 2 methods = 4 outputs")
    org.get_by_role("button", name="Create study and generate its outputs").click()
    created = org.get_by_text(re.compile(r"Study #\d+ created: 4 of 4 outputs stored"))
    expect(created).to_be_visible(timeout=GENERATION_TIMEOUT_MS)
    return int(re.search(r"Study #(\d+)", created.inner_text()).group(1))


def invite_links(page, sid: int) -> dict[str, str]:
    org = panel(page)
    org.get_by_label("Invite raters (names, comma or line separated; display only)").fill(
        ", ".join(f"{r}-{sid}" for r in PLAN)
    )
    org.get_by_role("button", name="Create invite codes").click()
    links = page.locator("#organizer-invite-links")
    expect(links).to_contain_text("?invite=")
    found = dict(re.findall(r"(\S+)-\d+ \S+?(/\?invite=[A-Za-z0-9_-]+)", links.inner_text()))
    assert set(found) == set(PLAN), links.inner_text()
    return found


def organizer_click(page, button: str, said: str | re.Pattern) -> None:
    page.get_by_role("button", name=button, exact=True).click()
    expect(panel(page).get_by_text(said).first).to_be_visible()


def download_export(page, tmp_path: Path, tag: str) -> tuple[str, list[dict[str, str]]]:
    """The Organizer's "Export ratings (CSV)" as the browser saves it: (its text, its rows)."""
    with page.expect_download() as started:
        page.get_by_role("button", name="Export ratings (CSV)").click()
    download = started.value
    assert download.suggested_filename == "ratings.csv"
    path = tmp_path / f"{tag}.csv"
    download.save_as(path)
    text = path.read_text(encoding="utf-8")
    return text, list(csv.DictReader(io.StringIO(text)))


# ---- the raters -----------------------------------------------------------------------------------


def shown_answers(page, texts: dict, answers: dict) -> tuple[str, list[tuple]]:
    """The item's prompt and, for responses A and B, the answers planned for the method that wrote it."""
    body = page.locator("body")
    prompt = body.get_by_role("textbox", name="Prompt").input_value()
    return prompt, [answers[prompt][texts[prompt][" ".join(response_text(body, x).split())]] for x in "AB"]


def visible_rows(page):
    rows = page.locator("#rate-responses .rate-slot fieldset").filter(visible=True)
    expect(rows).to_have_count(2 * PER_RESPONSE)
    return rows


def expect_checked(page, given: list[tuple]) -> None:
    """Every row of both responses shows `given`'s answer checked, every comment box its comment."""
    rows = visible_rows(page)
    for slot, (letter, (style, yes_no, choice, comment, overall)) in enumerate(zip("AB", given)):
        for j, answer in enumerate((style, yes_no, choice, overall)):
            expect(rows.nth(PER_RESPONSE * slot + j).get_by_label(str(answer), exact=True)).to_be_checked()
        expect(comment_box(page, letter)).to_have_value(comment or "")


def comment_box(page, letter: str):
    return page.get_by_label(f"why: What made you decide? ({letter}, optional)")


def rate_item(page, texts: dict[str, dict[str, str]], answers: dict[str, dict[str, tuple]]) -> str:
    """Answer every question of every response on screen by clicking, as `answers` says for the
    response's method; returns the item's prompt."""
    prompt, given = shown_answers(page, texts, answers)
    rows = visible_rows(page)
    for slot, (letter, (style, yes_no, choice, comment, overall)) in enumerate(zip("AB", given)):
        for j, answer in enumerate((style, yes_no, choice, overall)):
            rows.nth(PER_RESPONSE * slot + j).get_by_label(str(answer), exact=True).check()
        if comment:
            comment_box(page, letter).fill(comment)
    expect(page.locator("#rate-counter")).to_contain_text("8 of 8 scored")  # the comment is not counted
    page.get_by_role("button", name="Submit ratings").click()
    return prompt


def keys_for(answer: tuple) -> str:
    """The digits a keyboard rater types for one response: a scale's point as written ("10": "1", "0"),
    yes/no and a choice by place (1 = the first label)."""
    style, yes_no, choice, _, overall = answer
    return f"{style}{('Yes', 'No').index(yes_no) + 1}{LABELS.index(choice) + 1}{overall}"


def rate_item_by_keys(page, texts: dict[str, dict[str, str]], answers: dict[str, dict[str, tuple]]) -> str:
    """Answer every row of both responses with digit keys alone: focus on response A's first row, then
    one digit (two for a 10) per row; the page moves on row by row, to response B, then to Submit.
    The comments are typed in their boxes after the digits, and Ctrl+Enter (or Enter on Submit) sends."""
    prompt, given = shown_answers(page, texts, answers)
    rows = visible_rows(page)
    rows.first.locator("input[type=radio]").first.focus()  # the row's Tab stop, as Tab would land on it
    for key in "".join(keys_for(a) for a in given):
        page.keyboard.press(key)
    submit = page.get_by_role("button", name="Submit ratings")
    expect(submit).to_be_focused(timeout=5_000)  # after the last row (a lone 1 waits its 700 ms first)
    expect_checked(page, [(*a[:3], None, a[4]) for a in given])
    expect(page.locator("#rate-counter")).to_contain_text("8 of 8 scored")
    commented = False
    for letter, answer in zip("AB", given):
        if answer[3]:
            comment_box(page, letter).fill(answer[3])
            commented = True
    page.keyboard.press("Control+Enter" if commented else "Enter")  # from the comment box, or on Submit
    return prompt


def rate_all(
    browser, app, link: str, texts: dict, answers: dict, change: tuple | None, by_keys: bool, artifacts_dir: Path
) -> None:
    """One rater rates both items (by clicks, or `by_keys` by digit keys); with `change` (prompt,
    method, style) they go back to that item, find their answers and comments as they left them,
    change the style of that method's response and submit again."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(90_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{app.url}{link}", wait_until="domcontentloaded")
        expect(page.get_by_text("correct (yes/no): Is it factually correct? (A)")).to_be_visible()
        seen = []
        for n in (1, 2):
            expect(page.get_by_text(f"Item {n} of 2")).to_be_visible()
            seen.append((rate_item_by_keys if by_keys else rate_item)(page, texts, answers))
            expect(page.get_by_text(re.compile(r"^Saved\b")).first).to_be_visible()
        expect(page.get_by_text(re.compile(r"You have rated all 2 items"))).to_be_visible()
        assert sorted(seen) == sorted(PROMPTS), seen
        if change is not None:
            back_and_change(page, texts, answers, *change)
            page.screenshot(path=str(artifacts_dir / "e2e-question-walk-changed.png"), full_page=True)
        assert not errors, errors
    finally:
        context.close()


def back_and_change(page, texts: dict, answers: dict, prompt: str, method: str, style: int) -> None:
    body = page.locator("body")
    box = body.get_by_role("textbox", name="Prompt")
    for n in (2, 1):  # Previous (from the done page: the last item) until the item of `prompt`
        page.get_by_role("button", name="← Previous").click()
        expect(page.get_by_text(f"Item {n} of 2")).to_be_visible()
        expect(page.locator("#rate-counter")).to_contain_text("8 of 8 scored")
        if box.input_value() == prompt:
            break
    assert box.input_value() == prompt
    expect_checked(page, shown_answers(page, texts, answers)[1])  # every answer as left, the 1-10 included
    rows = visible_rows(page)
    for slot, letter in enumerate("AB"):
        if texts[prompt][" ".join(response_text(body, letter).split())] == method:
            rows.nth(PER_RESPONSE * slot).get_by_label(str(style), exact=True).check()
    page.get_by_role("button", name="Submit ratings").click()
    expect(page.get_by_text(re.compile(r"^Saved\b")).first).to_be_visible()


# ---- what the study's pages say ---------------------------------------------------------------------


def results_of(page, name: str, sid: int) -> dict:
    """Results for study `sid` (the tab opens on the newest published study and shows it; the study
    picked is shown when it changes): its headline, per-method table and "What the ratings say"."""
    page.get_by_role("tab", name="Results").click()
    res = panel(page)
    pick_option(page, res, "Study", f"{name} (#{sid})")
    # the story's link names the study shown: the report on the page is study `sid`'s, not the last one's
    expect(page.locator(f'#results-story a[href="/present?study={sid}"]')).to_be_visible(timeout=RESULTS_TIMEOUT_MS)
    expect(res.get_by_role("heading", name=name)).to_be_visible()
    headline = res.get_by_text(re.compile(r"^\d+ prompts? · \d+ ratings? by"))
    said = res.locator("span.md.prose").filter(has_text=re.compile(r"Headline family: "))
    return {
        "headline": headline.inner_text(),
        "table": grid_rows(res.get_by_role("grid", name="Per method")),
        "said": said.inner_text(),
    }


def present_of(page, app, sid: int) -> dict:
    """/present for study `sid`, in a page of its own beside the app's (which stays as it is)."""
    present = page.context.new_page()
    try:
        present.goto(f"{app.url}/present?study={sid}", wait_until="load")
        expect(present.locator("#takeaway")).to_be_visible()
        return {
            "sub": present.locator("p.sub").inner_text(),
            "table": grid_rows(present.get_by_role("region", name="Per method")),
            "body": present.locator("main").inner_text(),
        }
    finally:
        present.close()


def cell(table: list[list[str]], method: str, column: str) -> str:
    rows = as_dicts(table)
    [name] = [c for c in rows[method] if c.startswith(column)]
    return rows[method][name]


def check_results(shown: dict, plan: dict) -> None:
    """The Results tab's numbers, each worked out from what the raters answered."""
    assert shown["headline"].startswith('2 prompts · 8 ratings by 2 raters · 0 "can\'t judge" answers'), shown
    by_method = answers_by_method(plan)
    said = shown["said"]
    for m in METHODS:
        given = by_method[m]
        style = cell(shown["table"], m, "style (1-7)")
        assert style.startswith(f"{mean(a[0] for a in given):.2f} "), (m, style)
        share = cell(shown["table"], m, "correct (yes/no)")  # a mean of 1 = yes, 0 = no: the share of yes
        assert share.startswith(f"{mean(a[1] == 'Yes' for a in given):.2f} "), (m, share)
        label, n = Counter(a[2] for a in given).most_common(1)[0]
        assert f"{m} mostly {label} ({n / len(given):.0%})" in said, said
        overall = cell(shown["table"], m, "overall (1-10)")
        assert overall.startswith(f"{mean(a[4] for a in given):.2f} "), (m, overall)
    assert not [c for c in shown["table"][0] if c.startswith(("error", "why"))], shown["table"][0]  # no mean
    counts = [[sum(a[2] == label for a in by_method[m]) for label in LABELS] for m in METHODS]
    chi2 = stats.chi2_contingency(counts, correction=False)[0]
    assert re.search(rf"^error: .*\(chi-square {chi2:.1f}, p = [\d.e-]+ by permutation .* over 8 answers", said, re.M)
    comments = [(m, a[3]) for m, given in by_method.items() for a in given if a[3]]
    assert f"Comments ({len(comments)}, listed as written, not analysed):" in said, said
    for m, text in comments:
        assert f"why on {m}: {text}" in said, said


def check_present(shown: dict, results: dict, sid: int) -> None:
    """/present's table: the same numbers as Results' for the numeric questions."""
    assert shown["sub"].startswith(f"Study #{sid} · 2 prompts · 8 ratings by 2 raters, double-blind"), shown["sub"]
    for m in METHODS:
        for column in ("style (1-7)", "correct (yes/no)", "overall (1-10)"):
            assert cell(shown["table"], m, column).split()[0] == cell(results["table"], m, column).split()[0]


# ---- the export --------------------------------------------------------------------------------------


def check_open_export(text: str, rows: list[dict[str, str]], codes: dict[str, str], plan: dict) -> None:
    """While open: the answers, as many as given, and every sealed column empty in every row."""
    assert list(rows[0]) == [*ALL_COLUMNS, *QUESTIONS]
    assert len(rows) == 8 and {r["study_state"] for r in rows} == {"open"}
    assert not [(r["rater"], c) for r in rows for c in SEALED_COLUMNS if r[c]], "a sealed column has a value"
    given = Counter((r["style"], r["overall"]) for r in rows)
    planned = [a for items in plan.values() for by in items.values() for a in by.values()]
    assert given == Counter((str(a[0]), str(a[4])) for a in planned)
    assert not [code for code in codes.values() if code.rsplit("=", 1)[-1] in text]


def check_export(text: str, rows: list[dict[str, str]], sid: int, plan: dict, codes: dict[str, str]) -> None:
    """The published study's export: one column per question after the catalogue's, each rating's
    answers as its rater gave them (a choice by its label, yes/no as 1/0, the comment's text), and no
    column that no file may carry (`never`), no invite code, no password."""
    never = {c.name for c in CATALOGUE if c.exposure == "never"}
    assert list(rows[0]) == [*ALL_COLUMNS, *QUESTIONS] and not never & set(rows[0])
    mine = [r for r in rows if r["study_id"] == str(sid)]
    assert len(mine) == len(rows) == 8 and {r["row_kind"] for r in mine} == {"rating"}
    got = {(r["rater"].rsplit("-", 1)[0], r["prompt"], r["method"]): tuple(r[q] for q in QUESTIONS) for r in mine}
    want = {
        (rater, prompt, m): (str(a[0]), "1" if a[1] == "Yes" else "0", a[2], a[3] or "", str(a[4]))
        for rater, items in plan.items()
        for prompt, by in items.items()
        for m, a in by.items()
    }
    assert got == want
    assert {r["study_state"] for r in mine} == {"published"} and all(r["seed"] for r in mine)
    assert not [code for code in codes.values() if code.rsplit("=", 1)[-1] in text]
    assert ORGANIZER_PASSWORD not in text


# ---- delete, import, compare ------------------------------------------------------------------------


def delete_study(page, name: str, sid: int) -> None:
    org = panel(page)
    org.get_by_text("Danger zone: delete a study or one rater's ratings").click()
    row = org.locator(".row").filter(has=page.get_by_label("Type the study's exact name to confirm")).last
    pick_option(page, row, "Study", f"#{sid} {name}")
    org.get_by_label("Type the study's exact name to confirm").fill(name)
    org.get_by_role("button", name="Delete this study").click()
    expect(org.get_by_text(re.compile(rf"Deleted study #{sid} .*2 items, 4 outputs, 8 ratings"))).to_be_visible()


def import_export(page, path: Path, name: str) -> int:
    """Upload the export in the Organizer's Import; the id of the study it made, from the studies table."""
    org = panel(page)
    button = page.get_by_role("button", name="Import", exact=True)
    row = org.locator(".row").filter(has=button).last  # "Import an export (.csv or .jsonl)" and its button
    expect(row).to_contain_text("Import an export (.csv or .jsonl)")
    row.locator("input[type=file]").set_input_files(str(path))
    expect(org.get_by_text(path.name)).to_be_visible()
    button.click()
    expect(org.get_by_text("Imported 8 ratings (1 new study, 2 items, 4 outputs).")).to_be_visible()
    [study] = [r for r in as_dicts(grid_rows(org.get_by_role("grid", name="Studies"))).values() if r["name"] == name]
    assert (study["state"], study["items"], study["outputs"], study["ratings"]) == ("published", "2", "4 / 4", "8")
    return int(study["id"])


@pytest.mark.timeout(900)
def test_every_question_type_from_the_organizer_to_a_re_import(browser, walk_app, artifacts_dir, tmp_path):
    app = walk_app
    name = f"Every question {secrets.token_hex(3)}"
    plan = final_plan()
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        sid = create_study(page, app, name)
        store = db_store(app.workdir)
        try:
            texts = {  # prompt -> the text a rater reads -> the method that wrote it
                i.prompt: {" ".join(o.text.split()): o.method for o in store.outputs_for_item(i.id)}
                for i in store.items(sid)
            }
        finally:
            store.dispose()
        assert set(texts) == set(PROMPTS) and all(len(by) == len(METHODS) for by in texts.values()), texts
        codes = invite_links(page, sid)
        for rater, link in codes.items():
            change = CHANGE[1:] if rater == CHANGE[0] else None
            rate_all(browser, app, link, texts, PLAN[rater], change, rater == BY_KEYS, artifacts_dir)
        check_open_export(*download_export(page, tmp_path, "open"), codes, plan)

        organizer_click(page, "Close rating", f"Study #{sid} is now closed.")
        organizer_click(page, "Publish results", f"Study #{sid} is now published.")
        text, rows = download_export(page, tmp_path, "published")
        check_export(text, rows, sid, plan, codes)
        original = results_of(page, name, sid)
        check_results(original, plan)
        present = present_of(page, app, sid)
        check_present(present, original, sid)

        page.get_by_role("tab", name="Organizer").click()
        delete_study(page, name, sid)
        copy_id = import_export(page, tmp_path / "published.csv", name)  # SQLite may give it the freed id
        fresh = context.new_page()  # a new visit: nothing on it was computed from the deleted study
        open_app(fresh, app)
        again = results_of(fresh, name, copy_id)
        assert again["headline"] == original["headline"]
        assert again["table"] == original["table"] and again["said"] == original["said"]
        copy = present_of(page, app, copy_id)
        assert copy["table"] == present["table"]
        assert copy["body"].replace(f"#{copy_id}", "#") == present["body"].replace(f"#{sid}", "#")
    except Exception:
        page.screenshot(path=str(artifacts_dir / "e2e-FAILED-question-walk.png"), full_page=True)
        raise
    finally:
        context.close()
