"""The Organizer tab in Chinese (issue 47), without a browser: what its handlers write, wired behind the
password as `build` wires them (ui/organizer/auth.py `guarded`), for a zh-CN browser's request: the
unlocked overview (status line, studies table, progress per rater with a rater who has not started and
the total row), the chosen study's design tables (enrolled raters, position balance, blocks), the flags,
a state change, the tables' first values before the password, and the preview line above "Create" leave
no English word but names, numbers and tests/support/english_left.py's allow-list; so do the lines after
each action (create, resume, invite, revoke, open, close, publish, export, import, delete) and at least
one refusal of each, the diagnostics and the power planner, the form check, the blinding index, the
rubric box's preview and the accounts' line. The English stays as it was (tests/test_organizer_handlers.py
reads it; the tests below check it word for word where they drive the same action in English)."""

from __future__ import annotations

import html
import json
import math
import re
from types import SimpleNamespace

import gradio as gr
import pandas as pd
import pytest

from arena import studies
from arena.model.llm import tokenizer_only_model
from arena.rating import blind
from arena.runs import estimate
from arena.store import Store
from common.rubric import DEFAULT_RUBRIC
from evaluation import form_cues
from evaluation.human import quality, raters
from evaluation.human.straight_lining import ACROSS
from tests.support.english_left import english_words, html_texts
from tests.support.seeding import invite, rate_every_output, seed_study
from tests.support.stand_ins import stand_in
from tests.test_guesses import NOTES, SCORES, enrol, guess_study
from tests.test_results_zh import read
from tests.test_stats_cli import rated_store
from ui import AppContext, organizer
from ui.organizer import accounts as accounts_panel
from ui.organizer import blinding as blinding_panel
from ui.organizer import dashboard
from ui.organizer import handlers as h
from ui.organizer import stats as organizer_stats
from ui.organizer.auth import guarded
from ui.organizer.forms import FIELDS, StudyForm, rubric_preview
from ui.organizer.words import in_language

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
PASSWORD = "organizer-zh-test"
NAME = "海边试点"  # the study's own name: Chinese keeps the check strict
RATERS = ("ann", "bo")


def zh_request() -> SimpleNamespace:
    return SimpleNamespace(
        headers={"host": "arena.local:7860", "accept-language": "zh-CN,zh;q=0.9"},
        client=SimpleNamespace(host="192.0.2.7"), cookies={}, url=SimpleNamespace(scheme="http", netloc="arena.local"),
    )  # fmt: skip


@pytest.fixture
def world(store):
    texts = [{m: f"回答 {k} {m}" for m in METHODS} for k in range(2)]
    sid, items = seed_study(store, NAME, ["提示词一", "提示词二"], texts)
    for name in RATERS:
        invite(store, sid, name)
    outputs = {o.method: o.id for o in store.outputs_for_item(items[0])}
    rate_every_output(store, outputs, [("ann", 2)])  # ann has begun, bo has not
    store.add_flag(store.rater_id("ann"), items[0], "broken", "空白", output_id=outputs["BS-4"], position=1)
    ctx = AppContext(model=lambda: None, organizer_password=PASSWORD, extras={"store": store})
    return SimpleNamespace(store=store, sid=sid, ctx=ctx)


def shown(out) -> str:
    """What a person reads of a handler's outputs (a line, a table, a gr.update's value)."""
    parts = out if isinstance(out, tuple) else (out,)
    return "\n".join(read(p) for p in parts)


def test_the_unlocked_organizer_in_chinese_leaves_no_english(world):
    store, sid, ctx = world.store, world.sid, world.ctx
    outputs = {
        "overview": guarded(ctx, h.overview, store)(zh_request(), PASSWORD, sid),
        "design": guarded(ctx, h.design, store)(zh_request(), PASSWORD, sid),
        "flags": guarded(ctx, h.flags_of, store)(zh_request(), PASSWORD, sid),
        "closed": guarded(ctx, h.set_state, store, studies.close_study)(zh_request(), PASSWORD, sid),
        "no study chosen": guarded(ctx, h.design, store)(zh_request(), PASSWORD, None),
    }
    names = {*RATERS, *METHODS, "seeded"}  # the raters, the methods and the model ("seeded"): names
    for what, out in outputs.items():
        assert english_words(shown(out), names) == [], (what, shown(out))
    overview = outputs["overview"]
    assert overview.status == "已解锁。" and "状态" in overview.studies.columns and "开放评分" in shown(overview)
    assert "未开始" in shown(overview) and "全部 2 位评分者" in shown(overview) and "1 / 2" in shown(overview)
    assert "该评分者看到的回答 B" in shown(outputs["flags"]) and "有邀请码" in shown(outputs["design"])
    assert outputs["closed"].status == f"研究 #{sid} 现在是 **已关闭** 状态。"
    # an export's file goes to the download byte for byte; only its status line is in Chinese
    data, line = guarded(ctx, h.export_ratings, store, "csv")(zh_request(), PASSWORD)
    assert data == h.export_ratings(store, "csv")[0] and line.startswith("已导出 ") and "ratings.csv" in line
    # the English, as the handlers write it
    english = h.overview(store, sid)
    assert english.status == "Unlocked." and "state" in english.studies.columns
    assert "not started" in shown(english) and "all 2 raters" in shown(english)


def test_the_invite_revoke_and_import_lines_in_chinese(world, tmp_path):
    # these three were written in English only and stayed English on a Chinese page (issue 46)
    store, sid, ctx = world.store, world.sid, world.ctx
    *_, invited, _ = guarded(ctx, h.invite, store)(zh_request(), PASSWORD, sid, "cy")
    assert invited == f"已为研究 #{sid} 生成 1 个邀请码。邀请码只在此刻显示：请下载 CSV 或复制链接。"
    *_, revoked = guarded(ctx, h.revoke, store)(zh_request(), PASSWORD, sid, "cy")
    *_, nothing = guarded(ctx, h.revoke, store)(zh_request(), PASSWORD, sid, "cy")
    assert (revoked, nothing) == ("邀请码已撤销；其评分保留。", "该评分者在这项研究中没有有效的邀请码。")
    studies.close_study(store, sid)  # an open study's export does not import
    path = tmp_path / "ratings.csv"
    path.write_text(h.export_ratings(store, "csv")[0], encoding="utf-8")
    imported = guarded(ctx, h.import_ratings, store)(zh_request(), PASSWORD, {"path": str(path)})
    assert imported.status == "已导入 3 条评分（新增 0 项研究、0 道题、0 个输出）。", imported.status
    for line in (invited, revoked, nothing, imported.status):
        assert english_words(line) == [], line


def test_the_organizers_first_tables_and_preview_in_chinese():
    locked = dashboard.empty_table(dashboard.FLAG_COLUMNS, "enter the organizer password above")
    [first] = organizer.first_tables([locked], zh_request())  # the page's loader, before the password
    assert english_words(read(first)) == [] and first.iloc[0, 0] == "请在上方输入组织者密码"
    assert in_language(locked, "en") is locked
    prompts = [f"提示词 {k}" for k in range(5)]
    for rates in ({}, {"BS-4": 20.0, "TS-Temp": 25.0}):
        line = dashboard.preview(prompts, ["BS-4", "TS-Temp", "TS-Tilted"], 2, 64, rates, 1, lang="zh")
        assert english_words(line, set(METHODS)) == [], line
        assert line.startswith("**预览：** 5 个提示词 + 1 道注意力检查题 × 3 种方法")
    english = dashboard.preview(prompts, ["BS-4"], 1, 64, {"BS-4": 20.0})
    assert english.startswith("**Preview:** 5 prompts × 1 method = 5 outputs, about")
    assert estimate.describe(1, [("BS-4", 0)], 8, {}) == (
        "1 prompt × 1 method = 1 output; no timing measured on this machine yet for this model (run Compare once "
        "and the estimate appears here)"
    )


# ---- the lines after each action, the refusals, the diagnostics, the planner, the form check, the blind ----

CODE_SPAN = re.compile(r"`[^`]*`")


def plain(text: str) -> str:
    """Markdown (or an error's HTML) as a person reads it: no escapes."""
    return re.sub(r"\\(.)", r"\1", html.unescape(text))


def left(text: str, names: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """`english_words` of what a person reads, but for code spans (a folder on the server, a setting's
    name as typed): they are names."""
    return english_words(CODE_SPAN.sub(" ", plain(text)), names)


def zh(ctx: AppContext, fn, *deps):
    """`fn` wired as `build` wires it (auth.guarded), called for a zh-CN browser."""
    wired = guarded(ctx, fn, *deps)
    return lambda *args, **kwargs: wired(zh_request(), PASSWORD, *args, **kwargs)


def en(ctx: AppContext, fn, *deps):
    """`zh`, for a browser in English."""
    wired = guarded(ctx, fn, *deps)
    request = zh_request()
    request.headers = {**request.headers, "accept-language": "en-GB,en;q=0.9"}
    return lambda *args, **kwargs: wired(request, PASSWORD, *args, **kwargs)


def refusal(call) -> str:
    """The inline line a refused call shows (a gr.Error's message, unescaped as the browser shows it)."""
    with pytest.raises(gr.Error) as refused:
        call()
    return html.unescape(refused.value.message)


def no_english(said: dict[str, str], names: set[str] | frozenset[str] = frozenset()) -> None:
    for what, text in said.items():
        assert left(text, names) == [], (what, text)


def test_each_action_and_its_refusals_in_chinese(world):
    store, sid, ctx = world.store, world.sid, world.ctx
    names = {*RATERS, *METHODS, "seeded", "丙", "丁"}
    said: dict[str, str] = {}
    table, links, _csv, *_, line, _ = zh(ctx, h.invite, store)(sid, "丙, 丁")
    # the codes and links themselves are not words: the line, the table's header, the buttons' words
    said["invited"], said["links"] = (
        line + " " + " ".join(table.columns),
        html_texts(re.sub("<code>.*?</code>", "", links)),
    )
    assert line.startswith("已为研究 #") and "复制链接" in links and 'data-done="已复制"' in links
    assert 'aria-label="复制 丙 的邀请链接"' in links
    said["invite: nobody"] = refusal(lambda: zh(ctx, h.invite, store)(sid, " , "))
    said["invite: twice"] = refusal(lambda: zh(ctx, h.invite, store)(sid, "戊, 戊"))
    said["revoked"] = zh(ctx, h.revoke, store)(sid, "丙")[-1]
    said["revoked again"] = zh(ctx, h.revoke, store)(sid, "丙")[-1]
    said["revoke: no such rater"] = refusal(lambda: zh(ctx, h.revoke, store)(sid, "无名氏"))
    said["publish: not closed"] = refusal(lambda: zh(ctx, h.set_state, store, studies.publish_study)(sid))
    said["closed"] = shown(zh(ctx, h.set_state, store, studies.close_study)(sid))
    said["published"] = shown(zh(ctx, h.set_state, store, studies.publish_study)(sid))
    said["reopen: published"] = refusal(lambda: zh(ctx, h.set_state, store, studies.open_study)(sid))
    said["no study chosen"] = refusal(lambda: zh(ctx, h.set_state, store, studies.close_study)("<无>"))
    said["votes: a scores study"] = refusal(lambda: zh(ctx, h.export_votes, store)(sid))
    said["export"] = zh(ctx, h.export_ratings, store, "jsonl")()[1]
    said["import: no file"] = refusal(lambda: zh(ctx, h.import_ratings, store)(None))
    assert said["import: no file"] == "请先上传导出文件" and said["votes: a scores study"].startswith("研究 #")
    assert said["reopen: published"] == f"研究 #{sid} 当前是“已发布”状态；只有从“草稿或已关闭”状态才能变为“开放评分”"
    said["delete: wrong name"] = refusal(lambda: zh(ctx, h.delete_study, store)(sid, "别的名字", sid))
    said["delete rater: wrong name"] = refusal(lambda: zh(ctx, h.delete_rater_ratings, store)(sid, "ann", "别的", sid))
    said["delete rater: no ratings"] = refusal(lambda: zh(ctx, h.delete_rater_ratings, store)(sid, "bo", NAME, sid))
    said["deleted rater"] = shown(zh(ctx, h.delete_rater_ratings, store)(sid, "ann", NAME, sid))
    said["deleted study"] = shown(zh(ctx, h.delete_study, store)(sid, NAME, None))
    assert "已删除研究 #" in said["deleted study"] and "删除前已导出该研究" in said["deleted study"]
    texts = [{m: f"回答 {k} {m}" for m in METHODS} for k in range(2)]
    still_open, _ = seed_study(store, "开放中的研究", ["一", "二"], texts)
    said["deleted while open"] = shown(zh(ctx, h.delete_study, store)(still_open, "开放中的研究", None))
    assert "研究当时仍在评分，所以副本（其中写明了每条评分的方法）不提供下载" in said["deleted while open"]
    no_english(said, names)
    # the English, as before, for a browser in English and for the handlers called as they are
    sid2, _ = seed_study(store, "English pilot", ["p one", "p two"], texts)
    line = en(ctx, h.invite, store)(sid2, "ann2")[-2]
    assert line == (
        f"1 invite code created for study #{sid2}. They are shown only now: download the CSV or copy the links."
    )
    assert en(ctx, h.revoke, store)(sid2, "ann2")[-1] == "Code revoked; their ratings stay."
    assert refusal(lambda: en(ctx, h.set_state, store, studies.publish_study)(sid2)) == (
        f"study #{sid2} is open; it can become published only from closed"
    )
    assert refusal(lambda: en(ctx, h.delete_study, store)(sid2, "nope", sid2)) == (
        "to confirm, type the study's exact name ('English pilot'); nothing was deleted"
    )
    deleted = plain(h.delete_study(store, sid2, "English pilot", None).status)
    assert deleted.startswith(f"Deleted study #{sid2} 'English pilot': 2 items, 6 outputs, 0 ratings, ")
    assert " raters' places in it. It was copied first, but the study was still open, so the copy" in deleted


def test_importing_in_chinese(world, tmp_path):
    store, sid, ctx = world.store, world.sid, world.ctx
    studies.close_study(store, sid)
    path = tmp_path / "ratings.csv"
    path.write_text(h.export_ratings(store, "csv")[0], encoding="utf-8")
    fresh = Store(f"sqlite:///{tmp_path / 'other.db'}")
    view = zh(ctx, h.import_ratings, fresh)({"path": str(path)})
    assert view.status.startswith("已导入 ") and left(view.status) == []
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"not": "a row"}\n', encoding="utf-8")
    said = refusal(lambda: zh(ctx, h.import_ratings, fresh)({"path": str(bad)}))
    assert said == "bad.jsonl 第 1 行不是本应用导出文件的行", said
    path.write_text(h.export_ratings(store, "csv")[0], encoding="utf-8")
    third = Store(f"sqlite:///{tmp_path / 'third.db'}")
    again = en(ctx, h.import_ratings, third)({"path": str(path)})
    assert re.fullmatch(r"Imported \d+ ratings \(1 new study, 1 item, \d+ outputs\)\.", again.status)
    fresh.dispose()
    third.dispose()


@pytest.fixture(scope="module")
def tokenizer():
    return tokenizer_only_model("").tokenizer  # the prompt-length check needs one; no weights load


def create_form(name: str, **changed) -> list:
    """The creation form's values after the password, in the order `build` wires them (forms.FIELDS)."""
    values = dict(
        study_name=name, source="pasted", language="all", pasted="天空为什么是蓝的？\n写一首关于海的诗。\n解释一下光合作用。",
        upload=None, methods=["BS-4", "TS-Temp"], samples=1, max_new_tokens=4, base_seed="", guidelines="",
        guess=None, design=None, models=None, scorer=None, rubric="", attention_items=0, exclusion=[],
    )  # fmt: skip
    values.update(changed)
    return [values[f] for f in FIELDS]


def test_creating_and_resuming_a_study_in_chinese(tmp_path, monkeypatch, tokenizer):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    store = Store(f"sqlite:///{tmp_path / 'create.db'}")
    lm = stand_in("smollm2-135m", tokenizer)
    ctx = AppContext(model=lambda: lm, organizer_password=PASSWORD, extras={"store": store})
    deps = (store, lambda: lm, [lm.name])
    bar: list[str] = []

    def progress(*_: object, desc: str | None = None, **__: object) -> None:  # Gradio's progress bar
        bar.append(desc or "")

    *panel, beside = zh(ctx, h.on_create, *deps)(*create_form("海边试点"), progress=progress)
    status = panel[3]
    assert status.startswith("研究 #") and "**形式检查**" in status and "**重放检查**" in status, status
    assert beside == "**已完成：** 已存储 6 / 6 条输出。"
    sid = store.list_studies(kind="study")[0].id
    said = {"created": status, "progress": "\n".join(bar)}
    refusals = {
        "no name": dict(study_name=""),
        "a method in the name": dict(study_name="BS-4 试点"),
        "no prompts": dict(pasted=""),
        "no prompts (tasks in no language)": dict(source="tasks", pasted="", language="fr"),
        "samples not a number": dict(samples="很多"),
        "too many samples": dict(samples=99),
        "no method": dict(methods=[]),
        "rubric not JSON": dict(rubric="{"),
        "rubric with no question": dict(rubric='{"dimensions": []}'),
        "rubric with a bad scale": dict(rubric='{"dimensions": [{"name": "质量", "low": 1, "high": 40}]}'),
        "attention rule, no attention items": dict(exclusion=["attention"]),
        "too many attention items": dict(attention_items=9),
        "pairwise with one method": dict(design="pairwise", methods=["BS-4"]),
        "pairwise with a rubric": dict(design="pairwise", rubric='{"dimensions": [{"name": "质量"}]}'),
    }
    for what, changed in refusals.items():
        said[what] = refusal(lambda: zh(ctx, h.on_create, *deps)(*create_form("试点二", **changed), progress=progress))
    assert said["no name"] == "请给研究起个名字" and said["no prompts"] == "请至少粘贴一个提示词，每行一个"
    said["resumed"] = zh(ctx, h.resume, *deps)(sid, progress=progress).status
    said["resume: no study"] = refusal(lambda: zh(ctx, h.resume, *deps)(999, progress=progress))
    said["resume: none chosen"] = refusal(lambda: zh(ctx, h.resume, *deps)(None, progress=progress))
    assert said["resumed"].startswith(f"研究 #{sid}：已存储 6 / 6 条输出（本次生成 0 条）。")
    # the language box's own values ("all", "en", "zh") and the one typed are named as the box shows them
    no_english(said, {*METHODS, "smollm2-135m", "all", "en", "zh", "fr"})
    # in English, as before
    made = h.create(
        store, lambda: lm, [lm.name], StudyForm(*create_form("English pilot")), progress=lambda *a, **k: None
    )
    head, form_check, *_ = plain(made.status).split("\n\n")
    assert (
        head.startswith("Study #")
        and " created: 6 of 6 outputs stored (6 generated now). The study is now open" in head
    )
    assert form_check.startswith(
        "**Form check** (before inviting raters):\n- BS-4: a classifier that sees only the form"
    )
    assert "**Replay check** (can a rater reproduce a response at home?):" in made.status
    assert refusal(lambda: en(ctx, h.on_create, *deps)(*create_form(""), progress=progress)) == "give the study a name"
    store.dispose()


def test_the_diagnostics_and_the_power_planner_in_chinese(tmp_path):
    store, sid = rated_store(tmp_path / "rated.db")
    ctx = AppContext(organizer_password=PASSWORD, extras={"store": store})
    names = {"ann", "bob", "cy", *METHODS}
    per_rater, position, text = zh(ctx, organizer_stats.diagnostics, store)(sid)
    said = {"diagnostics": " ".join([read(per_rater), read(position), text])}
    assert "评分者标记（不会自动生效）：创建时没有设定排除规则" in text and "每题秒数：" in text
    assert "去掉该评分者后的 α（连贯性）" in per_rater.columns and "最后展示的" in read(position)
    said["diagnose: no study"] = refusal(lambda: zh(ctx, organizer_stats.diagnostics, store)(999))
    plan = zh(ctx, organizer_stats.power_plan, store)
    for what, args in {
        "plan": (None, "coherence", 0.5, 3, "8, 16", "1, 2", 50),
        "plan from a pilot": (sid, "coherence", 0.5, 3, "8", "2", 50),
    }.items():
        table, line = plan(*args)
        said[what] = read(table) + " " + line
    assert "2 位评分者" in said["plan"] and "默认标准差：题目 0.70" in plain(said["plan"])
    for what, args in {
        "Δ not a number": (None, "coherence", "大", 3, "8", "2", 50),
        "Δ too large": (None, "coherence", 9, 3, "8", "2", 50),
        "items not numbers": (None, "coherence", 0.5, 3, "八", "2", 50),
        "raters out of range": (None, "coherence", 0.5, 3, "8", "99", 50),
        "too many cells": (None, "coherence", 0.5, 3, ",".join(map(str, range(3, 50))), "1,2", 50),
        "no dimension": (None, "", 0.5, 3, "8", "2", 50),
        "a question the pilot lacks": (sid, "质量", 0.5, 3, "8", "2", 50),
    }.items():
        said[what] = refusal(lambda: plan(*args))
    no_english(said, names)
    # in English, as before
    english = plain(organizer_stats.diagnostics(store, sid)[2])
    assert "- Rater flags (never applied by themselves): No exclusion rule was set at creation: these flags" in english
    assert english.endswith("a negative change means the rest agree better without them.")
    line = plain(organizer_stats.power_plan(store, None, "coherence", 0.5, 3, "8", "2", 50)[1])
    assert line.startswith("No design in the grid reaches 80% power for Δ = 0.5; the best is 8 items × 2 raters")
    assert "\n\ndefault SDs: item 0.70, rater 0.40, output 0.60, resid 0.80 (mean 3.20); 50 simulated studies" in line
    store.dispose()


def test_every_rater_flag_and_the_exclusion_rule_in_chinese():
    """What the diagnostics say about each kind of flagged rater (a straight-liner per question and across,
    a speeder, one against the consensus, one unrelated to it, a failed attention item), in Chinese."""
    flagged = {
        "rater": "甲", "attention_failed": True, "straight_lining": True, "flat_on": ["coherence", ACROSS],
        "flat_items_share": 1.0, "speeder": True, "median_s_per_item": 3.0, "reading_ratio": 0.25,
        "against": True, "against_p": 0.001, "tested_items": 12,
    }  # fmt: skip
    unrelated = {"rater": "乙", "unrelated": True, "cells": 36, "agree_all_p": 0.6}
    diag = pd.DataFrame([{"rater": "丙", "straight_lining": True, "flat_on": "coherence, across questions",
                          "median_s_per_item": 4.0, "alpha_change_coherence": -0.2}])  # fmt: skip
    lines = [
        quality.flag_words(flagged, "zh"),
        quality.flag_words(unrelated, "zh"),
        quality.flag_words({"rater": "丁"}, "zh"),
    ]
    lines += raters.explain(diag, ["coherence"], "zh") + raters.explain(diag.iloc[:0], ["coherence"], "zh")
    study = SimpleNamespace(rubric=DEFAULT_RUBRIC, exclusion_rules=("attention", "straight-lining"))
    ratings = pd.DataFrame(columns=["rater", "item_id", "output_id", "method", "coherence"])
    lines += organizer_stats.quality_lines(ratings, study, "zh")
    for line in lines:
        assert english_words(line) == [], line
    assert lines[0].startswith("甲：没有通过一道注意力检查题；直线作答：在“连贯性”上给同一题的每条回答打相同的分")
    assert "创建时设定的规则排除这样的评分者：没有通过某道注意力检查题；" in lines[-2]
    english = quality.flag_words(flagged)
    assert english.startswith("甲: failed an attention item; straight-lining: the same score on every response of an")
    assert (
        "; too fast to have read the responses: a median of 3 s per item, 25% of the time needed to skim them"
        in english
    )
    assert raters.explain(diag, ["coherence"]) == [
        "丙: straight-lining: flat on coherence, across questions; agreement rises without them on coherence (-0.20); "
        "a median of 4 s per item."
    ]


def test_the_form_check_and_the_blinding_index_in_chinese(store):
    sid, _ = guess_study(store, targets=METHODS, n_items=3)
    ctx = AppContext(organizer_password=PASSWORD, extras={"store": store})
    said = {"form check": zh(ctx, blinding_panel.form_check_text, store)(sid)}
    said["blinding: still open"] = refusal(lambda: zh(ctx, blinding_panel.blinding_text, store)(sid))
    for name in ("甲", "乙"):
        rater = enrol(store, sid, name)
        for index in range(3):
            view, _ = blind.open_for(store, sid, lambda: rater.rater_id, index=index + 1)
            blind.submit_slots_then_next(store, rater, view.item, SCORES, NOTES)
            blind.guess_for(store, rater, view.item, {m: "A" for m in METHODS})
    said["form check: rating started"] = refusal(lambda: zh(ctx, blinding_panel.form_check_text, store)(sid))
    studies.close_study(store, sid)
    text, table = zh(ctx, blinding_panel.blinding_text, store)(sid)
    said["blinding index"] = text + " " + read(table)
    assert "被辨认的方法" in table.columns and "盲法指数" in table.columns
    said["form check: closed"] = zh(ctx, blinding_panel.form_check_text, store)(sid)
    other, _ = seed_study(store, "没有盲法问题", ["一", "二"], [{m: f"{m} {k}" for m in METHODS} for k in range(2)])
    studies.close_study(store, other)
    said["blinding: not asked"] = refusal(lambda: zh(ctx, blinding_panel.blinding_text, store)(other))
    said["form check: no study"] = refusal(lambda: zh(ctx, blinding_panel.form_check_text, store)(999))
    no_english(said, {*METHODS, "m"})
    english, _ = blinding_panel.blinding_text(store, sid)
    assert plain(english).startswith("- Raters picked BS-4 in ") and left(english, set(METHODS))


def test_the_form_checks_cues_and_remedies_in_chinese():
    """A method recognisable by each kind of cue (a count: stops by itself; a mean: its length), in Chinese."""
    rows = [
        dict(method="BS-4", items=6, correct=6, chance=1 / 3, p_value=0.001, recognisable=True, cue="stopped",
             cue_words="", remedy="", cue_own=5.0, cue_own_n=6, cue_others=1.0, cue_others_n=12),
        dict(method="TS-Temp", items=6, correct=5, chance=1 / 3, p_value=0.02, recognisable=True, cue="tokens",
             cue_words="", remedy="", cue_own=40.0, cue_own_n=6, cue_others=64.0, cue_others_n=12),
        dict(method="TS-Tilted", items=0, correct=0, chance=math.nan, p_value=math.nan, recognisable=False, cue="",
             cue_words="", remedy="", cue_own=math.nan, cue_own_n=0, cue_others=math.nan, cue_others_n=0),
    ]  # fmt: skip
    result = pd.DataFrame(rows)
    for line in form_cues.summary_lines(result, "zh"):
        assert english_words(line, set(METHODS)) == [], line
    english = form_cues.summary_lines(result)
    assert english[0].endswith(
        "recognisable from its form (BS-4 stopped by itself in 5 of 6 responses, the others in 1 of 12). Remedy: let "
        "no response visibly stop early: raise max tokens until every method stops by itself, or cut every response "
        "at the same length so that all run to the cut-off."
    )
    assert "(TS-Temp differs by its length in tokens: 40 on average, the others 64)" in english[1]
    assert english[2] == "TS-Tilted: too few items to check (the check needs 3 or more)."


# What an organizer types in the rubric box's JSON and a refusal quotes back: its keys, a reserved column's
# name, the question types' names.
JSON_WORDS = {"dimensions", "name", "labels", "anchors", "rater", "scale", "yes-no", "choice", "text"}


def test_the_rubric_box_and_the_accounts_line_in_chinese(store):
    sid, _ = seed_study(store, NAME, ["一"], [{m: m for m in METHODS}])
    ctx = AppContext(organizer_password=PASSWORD, extras={"store": store})
    preview = zh(ctx, rubric_preview)
    rubric = json.dumps({"dimensions": [
        {"name": "质量", "low": 1, "high": 10, "description": "回答好不好？", "anchors": {"1": "不能用", "10": "完美"}},
        {"name": "切题", "type": "yes-no"}, {"name": "语气", "type": "choice", "labels": ["正式", "随意"]},
        {"name": "评语", "type": "text"},
    ]}, ensure_ascii=False)  # fmt: skip
    said = {"preview": preview(rubric), "default": preview("")}
    assert said["preview"].startswith("| 问题 | 量表 | 评什么 | 锚点 |") and "是/否" in said["preview"]
    for what, box in {
        "not JSON": "{",
        "no list": "{}",
        "no question": '{"dimensions": []}',
        "no name": '{"dimensions": [{"low": 1}]}',
        "a reserved name": '{"dimensions": [{"name": "rater"}]}',
        "a scale of one point": '{"dimensions": [{"name": "质量", "low": 3, "high": 3}]}',
        "an anchor off the scale": '{"dimensions": [{"name": "质量", "anchors": {"9": "好"}}]}',
        "labels on a scale": '{"dimensions": [{"name": "质量", "labels": ["甲", "乙"]}]}',
        "anchors on a choice": '{"dimensions": [{"name": "语气", "type": "choice", "labels": ["甲", "乙"], "anchors": {"1": "x"}}]}',
        "one label": '{"dimensions": [{"name": "语气", "type": "choice", "labels": ["甲"]}]}',
        "a label twice": '{"dimensions": [{"name": "语气", "type": "choice", "labels": ["甲", "甲"]}]}',
        "only a comment": '{"dimensions": [{"name": "评语", "type": "text"}]}',
        "named twice": '{"dimensions": [{"name": "质量"}, {"name": "质量"}]}',
        "an unknown type": '{"dimensions": [{"name": "质量", "type": "星级"}]}',
    }.items():
        said[what] = preview(box)
        assert said[what].startswith("**错误：** 评分问题："), (what, said[what])
    lines = {
        "accounts: none": zh(ctx, accounts_panel.save, store)(sid, "")[1],
        "accounts: two": zh(ctx, accounts_panel.save, store)(sid, "alice, bob")[1],
        "accounts: anyone": zh(ctx, accounts_panel.save, store)(sid, "*")[1],
        "accounts: a bad name": refusal(lambda: zh(ctx, accounts_panel.save, store)(sid, "不是 名字")),
    }
    no_english(said, JSON_WORDS)
    no_english(lines, {"alice", "bob"})
    assert (
        plain(rubric_preview("{"))
        == "**error:** the rubric: the rubric is not valid JSON (Expecting property name enclosed in double quotes)"
    )
    assert (
        accounts_panel.save(store, sid, "")[1]
        == f"Study #{sid}: no Hugging Face account may sign in; invite codes only."
    )
