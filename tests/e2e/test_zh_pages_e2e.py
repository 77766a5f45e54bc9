"""Chinese everywhere a person reads (issue 47), in a real zh-CN browser: the pairwise rating page (an
item, after a vote with its blind question, the next item, the done page, going back, a refusal), the 1-5
page's blind question (after a submit, and the next item), /present (a study whose exclusion rule
dropped a rater, one with no exclusion, and a pairwise study with votes), the Results tab's report of a
pairwise study and of a 1-5 study (its statistics open), the cross-study board, and the Organizer tab
unlocked with every section open, each walked and read whole
(its text, its charts' drawn text, its aria-labels), leave no English word but names, numbers and
tests/support/english_left.py's allow-list. Before, /present's exclusion lines and table, chart titles
and axes, and the pairwise page's "Item 1 of 3 · you have judged 0 of 3" and "Response A/B" were English.

The studies are written straight into the app's database (their texts are what is read, not generated)."""

from __future__ import annotations

import re
import secrets

import pytest
from playwright.sync_api import expect

from arena.access import invites
from arena.model.llm import EMBEDDED
from arena.model.model_names import MAKERS, model_in_words
from tests.support.browser_helpers import panel, pick_option
from tests.support.english_left import english_words
from tests.support.live_app import ORGANIZER_PASSWORD
from tests.support.seeding import db_store, publish
from tests.test_pairwise_board import make_study, score_all, vote_all
from tests.test_zh_pages import guess_study, voted_pair_study
from ui import i18n

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
# What a person reads: the visible text but code (a command or a setting, typed as it is: `hf_oauth: true`),
# the charts' drawn text (SVG), and the names a screen reader reads,
# toasts included: Gradio writes a toast's title ("Error") and its close button's name ("Close") in English
# whatever the language, and ui/assets.py's script puts them in Chinese on a Chinese page; the footer's
# names are Gradio's own (its links and settings) and are not read.
READ_ALL = """() => {
  let text = document.body.innerText;
  for (const code of document.querySelectorAll('code')) text = text.replace(code.innerText, ' ');
  return [text,
    ...[...document.querySelectorAll('svg text')].map((e) => e.textContent),
    ...[...document.querySelectorAll('[aria-label]')]
       .filter((e) => (e.offsetParent !== null || e.closest('svg')) && !e.closest('footer'))
       .map((e) => e.getAttribute('aria-label'))].join('\\n');
}"""


@pytest.fixture
def zh_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(90_000)
    yield page
    context.close()


def left_on(page, names: set[str]) -> list[str]:
    return english_words(page.evaluate(READ_ALL), names)


def pairwise_study(app, token: str) -> tuple[str, str]:
    """A pairwise study of two prompts that asks which response came from TS-Temp; Chinese texts."""
    store = db_store(app.workdir)
    name = f"成对研究 {token}"
    sid = store.create_study(
        name, methods=list(METHODS[:2]), settings={m: {} for m in METHODS[:2]}, design="pairwise",
        guess_methods=["TS-Temp"],
    )  # fmt: skip
    for k, iid in enumerate(store.add_items(sid, [{"prompt": f"写一句问候 {k}", "scenario": "s"} for k in range(2)])):
        for j, m in enumerate(METHODS[:2]):
            store.add_output(iid, m, 0, text=f"你好，朋友 {k}{j}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, [f"评分者{token}"])
    store.dispose()
    return made.code, token


def test_the_pairwise_page_in_chinese_leaves_no_english(zh_page, app, artifacts_dir):
    page = zh_page
    code, token = pairwise_study(app, secrets.token_hex(3))
    names = {token}
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    progress = page.locator("#pair-progress")
    expect(progress).to_contain_text("第 1 题，共 2 题 · 你已评判 0 / 2 题", timeout=120_000)
    expect(page.get_by_role("region", name="回答 A", exact=True)).to_be_visible()
    page.get_by_text(i18n.ZH["Skip this item, or flag a problem"]).click()  # its labels are read too
    page.get_by_text(i18n.ZH["How to vote (guidelines)"]).click()
    expect(page.locator("#pair-guide")).to_contain_text("投一票")
    assert left_on(page, names) == [], "item"
    page.screenshot(path=str(artifacts_dir / "e2e-pairwise-zh.png"), full_page=True)

    held: list = []  # the vote waits in the queue: Gradio's "processing |" must not show (CI saw it once)
    page.route(re.compile(r".*/queue/join.*"), lambda route: held.append(route))
    page.get_by_role("button", name="A 更好 (1)").click()
    page.wait_for_function("() => document.querySelector('.meta-text, .progress-text, .meta-text-center') !== null")
    expect(page.locator(".meta-text, .progress-text, .meta-text-center").filter(visible=True)).to_have_count(0)
    assert left_on(page, names) == [], "while a vote is sent"
    for route in held:
        route.continue_()
    page.unroute(re.compile(r".*/queue/join.*"))
    question = page.locator("#pair-guess")
    expect(question).to_contain_text("如果其中一条来自 TS-Temp，是哪一条？")
    expect(progress).to_contain_text("你的投票：A 更好")
    expect(page.locator("#pair-status")).to_contain_text("已保存。关于此题还有一个问题。")
    assert left_on(page, names) == [], "after a vote"
    question.get_by_label(i18n.ZH["Don't know"], exact=True).first.check()
    page.locator("#pair-guess-send").click()
    expect(progress).to_contain_text("第 2 题，共 2 题")
    expect(page.locator("#pair-status")).to_contain_text("谢谢。下面是下一题。")
    assert left_on(page, names) == [], "the next item"

    page.get_by_role("button", name="平局 (3)").click()
    expect(question).to_be_visible()
    question.get_by_label("B", exact=True).first.check()
    page.locator("#pair-guess-send").click()
    expect(progress).to_contain_text("你已评判本研究的全部 2 道题")
    assert left_on(page, names) == [], "the done page"
    page.screenshot(path=str(artifacts_dir / "e2e-pairwise-zh-done.png"), full_page=True)
    previous = page.get_by_role("button", name=i18n.ZH["← Previous"])
    previous.click()  # from the done page back to item 2, then item 1, then a refusal
    expect(progress).to_contain_text("第 2 题，共 2 题")
    expect(progress).to_contain_text("你的投票：平局")
    previous.click()
    expect(progress).to_contain_text("第 1 题，共 2 题")
    previous.click()
    expect(page.get_by_text("没有更早的题目")).to_be_visible()  # the refusal's line, in Chinese
    # and Gradio's own words around it: the toast's title and its close button's name (ui/assets.py)
    expect(page.locator(".toast-title").filter(visible=True).first).to_have_text(re.compile(r"^\s*错误\s*$"))
    expect(page.locator("[data-testid=toast-close]").filter(visible=True).first).to_have_attribute("aria-label", "关闭")
    assert left_on(page, names) == [], "a refusal"


def exclusion_study(app, token: str, rules: tuple[str, ...]) -> int:
    """A published 1-5 study of four prompts rated by four raters, one of whom failed an attention item."""
    store = db_store(app.workdir)
    sid = store.create_study(
        f"海边研究 {token}", model="seeded", methods=list(METHODS), settings={m: {} for m in METHODS},
        exclusion_rules=rules,
    )  # fmt: skip
    items = store.add_items(sid, [{"prompt": f"提示词 {k}", "scenario": "seeded", "language": "zh"} for k in range(4)])
    outputs = {}
    for item in items:
        for j, m in enumerate(METHODS):
            outputs[item, m], _ = store.add_output(
                item, m, 0, text=f"回答 {j}", settings={}, seed=1, model="seeded", new_tokens=4,
                latency_ms=900.0 + 100 * j, tokens_per_s=10.0,
            )  # fmt: skip
    for r, rater in enumerate(("ann", "ben", "cho", "dee")):
        rid = store.rater_id(f"{rater}-{token}")
        store.study_rater_index(sid, rid)
        store.record_attention(sid, rid, rater != "dee")
        for k, item in enumerate(items):
            for j, m in enumerate(METHODS):
                store.save_rating(rid, outputs[item, m], min(5, 2 + j + (k + r) % 2), 3 + (j == 1), min(5, 2 + j))
    publish(store, sid)
    store.dispose()
    return sid


@pytest.mark.parametrize("rules", [("attention",), ()], ids=["exclusions", "none"])
def test_present_in_chinese_leaves_no_english(zh_page, app, artifacts_dir, rules):
    page = zh_page
    token = secrets.token_hex(3)
    sid = exclusion_study(app, token, rules)
    page.goto(f"{app.url}/present?study={sid}", wait_until="load")  # the language from Accept-Language
    page.locator("#takeaway").wait_for()
    expect(page.locator("figure.chart .main-svg").first).to_be_visible()
    expect(page.locator("figure.chart .gtitle")).to_have_count(2)  # both charts drawn, with their titles
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    if rules:
        expect(page.locator(".exclusion").first).to_contain_text("4 位评分者中有 1 位")
        expect(page.locator("#sensitivity th").first).to_have_text("维度")
    else:
        expect(page.locator(".exclusion")).to_have_count(0)
    # the model's name and its unit: names ("seeded" is this test's model)
    left = left_on(page, {token, "seeded"})
    assert left == [], f"English left on /present in Chinese: {left}"
    page.screenshot(path=str(artifacts_dir / f"e2e-present-zh-{'-'.join(rules) or 'none'}.png"), full_page=True)
    page.goto(f"{app.url}/present?study={sid}&lang=en", wait_until="load")  # and ?lang=en still gives English
    expect(page.locator("figure.chart .gtitle").first).to_contain_text("Human scores")


def test_a_pairwise_present_in_chinese_leaves_no_english(zh_page, app, artifacts_dir):
    """Its takeaway, leaderboard (columns and cells), the lines under it and the blinding line."""
    page = zh_page
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    sid = voted_pair_study(store, name=f"成对研究 {token}", token=token)
    store.dispose()
    page.goto(f"{app.url}/present?study={sid}", wait_until="load")  # the language from Accept-Language
    expect(page.locator("#takeaway")).to_contain_text("没有哪个系统明显领先于另一个")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("table th").first).to_have_text("名次")
    expect(page.locator("table td").filter(has_text="是：12 次投票（少于 30 次）").first).to_be_visible()
    expect(page.locator(".blinding")).to_contain_text("评分者在 75% 的猜测中选中了 TS-Temp")
    left = left_on(page, {token})
    assert left == [], f"English left on a pairwise /present in Chinese: {left}"
    page.screenshot(path=str(artifacts_dir / "e2e-present-zh-pairwise.png"), full_page=True)
    page.goto(f"{app.url}/present?study={sid}&lang=en", wait_until="load")
    expect(page.locator("#takeaway")).to_contain_text("No system is clearly ahead of another")


def test_the_rating_pages_blind_question_in_chinese(zh_page, app, artifacts_dir):
    """A 1-5 study that asks which response came from BS-4: after a submit the question stands in the
    responses' place, in Chinese, and so does what follows."""
    page = zh_page
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    code = guess_study(store, name=f"盲评研究 {token}", rater=f"评分者{token}")
    store.dispose()
    page.goto(f"{app.url}/?invite={code}", wait_until="domcontentloaded")
    expect(page.get_by_text("第 1 题，共 2 题")).to_be_visible(timeout=120_000)
    groups = page.locator("#rate-responses fieldset").filter(visible=True)
    expect(groups).to_have_count(9)
    for g in range(9):
        groups.nth(g).get_by_label("4", exact=True).check()
    page.get_by_role("button", name=i18n.ZH["Submit ratings"]).click()
    question = page.locator("#rate-guess")
    expect(question).to_contain_text("你认为哪条回答来自 BS-4？")
    expect(page.locator("#rate-status")).to_contain_text("已保存。关于此题还有一个问题")
    assert left_on(page, {token}) == [], "the blind question"
    page.screenshot(path=str(artifacts_dir / "e2e-rating-zh-question.png"), full_page=True)
    question.get_by_label(i18n.ZH["Don't know"], exact=True).first.check()
    page.locator("#rate-guess-send").click()
    expect(page.get_by_text("第 2 题，共 2 题")).to_be_visible()
    expect(page.locator("#rate-status")).to_contain_text("谢谢。下面是下一题。")
    assert left_on(page, {token}) == [], "the next item"


def test_the_results_tab_shows_a_pairwise_study_in_chinese(zh_page, app, artifacts_dir):
    """The Results tab's report of a pairwise study: its headline, notes, leaderboard (columns and cells),
    takeaway and blinding line and the link to /present, read whole in a zh-CN browser."""
    page = zh_page
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    voted_pair_study(store, name=f"成对研究 {token}", token=token)
    # the studies' own names (the other tests' too, in the Study box's list): names, as written
    names = {word for study in store.list_studies() for word in study.name.split()}
    store.dispose()
    page.goto(app.url, wait_until="domcontentloaded")
    page.get_by_role("tab", name=i18n.ZH["Results"]).first.click()
    tab = panel(page)
    pick_option(page, tab, i18n.ZH["Study"], re.compile(token))
    expect(tab.locator("h3").filter(has_text=token)).to_be_visible(timeout=120_000)  # this study's report
    expect(tab.get_by_text("6 个提示词 · 3 位评分者的 18 次投票")).to_be_visible()
    expect(page.locator("#results-story")).to_contain_text("盲评是否保持住了？")
    expect(page.locator("#results-table")).to_contain_text("名次")
    expect(page.locator("#results-table [role=toolbar]")).to_have_attribute("aria-label", "表格操作")
    csv = page.locator("a[download]").filter(visible=True).first.get_attribute("download") or ""
    left = left_on(page, names | {csv, csv.removesuffix(".csv"), "csv"})  # the download's file name: a name
    assert left == [], f"English left on the Results tab in Chinese: {left}"
    page.screenshot(path=str(artifacts_dir / "e2e-results-zh-pairwise.png"), full_page=True)


def test_the_results_tab_the_board_and_the_organizer_in_chinese(zh_page, app, artifacts_dir):
    """One page load, three stops: a 1-5 study's report on the Results tab (headline with its exclusion,
    table, charts, the statistics opened: tables and lines, story), the cross-study board of two studies of
    one model, and the Organizer tab unlocked with the password, every section opened. Nothing English is
    left but names (the studies', the model's, the scenario's), numbers and the allow-list."""
    page = zh_page
    token = secrets.token_hex(3)
    store = db_store(app.workdir)
    model = f"m{token}"
    for design, rate in (("pairwise", vote_all), ("scores", score_all)):
        sid, iids = make_study(store, design, model=model)
        rate(store, iids)
        publish(store, sid)
    # Published last, so the Results tab opens on it: opened on the 1-5 board study (10 texts a method)
    # it would first compute that study's MAUVE under the real model, 45-60 CPU s that nothing here reads.
    exclusion_study(app, token, ("attention",))
    # a study not generated yet: its state, in the studies table, is a word to translate too
    store.create_study(f"草稿研究 {token}", model=model, methods=["TS-Temp", "BS-4"], state="draft")
    # the studies' own names (every test's, in the Study boxes), the model and the prompts' scenario: names
    # (a name's words as the page shows them: "Unpublished <b>draft</b>", another test's, reads "draft")
    names = {word for study in store.list_studies() for word in re.findall(r"\w+", study.name)} | {
        model,
        "seeded",
        "zh",
    }
    names |= {study.model for study in store.list_studies()}  # every test's studies' models (the shared app's)
    # the perplexity scorer in the headline: a model's name and its maker's ("SmolLM2-135M-Instruct (Hugging Face…)")
    names |= {model_in_words(m.name).split(" (")[0] for m in EMBEDDED.values()}
    names |= {word for maker in MAKERS.values() for word in maker.split()}
    # the Organizer's models row: the models' short names (smollm2-135m@int8) and their licences' names
    names |= set(EMBEDDED) | {word for m in EMBEDDED.values() for word in m.licence.split()}
    names.add("prompt")  # the prompt file's column, as it must be typed (“prompt” 列)
    for study in store.list_studies():  # the raters' names in the Organizer's tables (the other tests' too)
        names |= {e.rater for e in store.enrolments(study.id)} | set(store.progress(study.id).get("rater", []))
    store.dispose()
    page.goto(app.url, wait_until="domcontentloaded")

    page.get_by_role("tab", name=i18n.ZH["Results"]).first.click()
    tab = panel(page)
    pick_option(page, tab, i18n.ZH["Study"], re.compile(f"海边研究 {token}"))
    expect(tab.locator("h3").filter(has_text=token)).to_be_visible(timeout=120_000)
    expect(tab.get_by_text("4 位评分者中有 1 位按创建研究时设定的规则被排除").first).to_be_visible()
    tab.get_by_text(i18n.ZH["Statistics"], exact=True).first.click()  # the accordion with the tables
    expect(tab.get_by_text("适用范围").first).to_be_visible()
    expect(page.locator("#results-story")).to_contain_text("给利益相关者看的展示页")
    expect(tab.locator(".js-plotly-plot .gtitle").first).to_be_visible()
    csv = page.locator("a[download]").filter(visible=True).first.get_attribute("download") or ""
    left = left_on(page, names | {csv, csv.removesuffix(".csv"), "csv"})  # the download's file name: a name
    assert left == [], f"English left on a 1-5 study's Results in Chinese: {left}"
    page.screenshot(path=str(artifacts_dir / "e2e-results-zh-1-5.png"), full_page=True)

    tab.get_by_text(i18n.ZH["Leaderboard across studies (same models)"]).first.click()
    pick_option(page, tab, i18n.ZH["Model set"], re.compile(model))
    tab.get_by_role("button", name=i18n.ZH["Show the leaderboard"]).click()
    expect(tab.get_by_text(f"{model} 的 2 项研究").first).to_be_visible()
    left = left_on(page, names | {csv, csv.removesuffix(".csv"), "csv"})
    assert left == [], f"English left on the cross-study board in Chinese: {left}"

    page.get_by_role("tab", name=i18n.ZH["Organizer"]).first.click()
    org = panel(page)
    box = org.get_by_label(i18n.ZH["Organizer password"])
    box.fill(ORGANIZER_PASSWORD)
    box.press("Enter")
    expect(org.get_by_text("已解锁").first).to_be_visible(timeout=60_000)
    closed = org.locator("button.label-wrap:not(.open)").filter(visible=True)
    for _ in range(20):  # every closed section, opened (one may hold another)
        if not closed.count():
            break
        closed.first.click()
        page.wait_for_timeout(200)
    expect(closed).to_have_count(0)
    expect(org.get_by_text("研究", exact=True).first).to_be_visible()  # the studies table's header
    left = left_on(page, names)
    page.screenshot(path=str(artifacts_dir / "e2e-organizer-zh.png"), full_page=True)
    assert left == [], f"English left on the Organizer tab in Chinese: {left}"
