"""The Organizer tab in Chinese (issue 47), without a browser: what its handlers write, wired behind the
password as `build` wires them (ui/organizer/auth.py `guarded`), for a zh-CN browser's request: the
unlocked overview (status line, studies table, progress per rater with a rater who has not started and
the total row), the chosen study's design tables (enrolled raters, position balance, blocks), the flags,
a state change, the tables' first values before the password, and the preview line above "Create" leave
no English word but names, numbers and tests/support/english_left.py's allow-list. The English stays as
it was (tests/test_organizer_handlers.py reads it)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena import studies
from arena.runs import estimate
from tests.support.english_left import english_words
from tests.support.seeding import invite, rate_every_output, seed_study
from tests.test_results_zh import read
from ui import AppContext, organizer
from ui.organizer import dashboard
from ui.organizer import handlers as h
from ui.organizer.auth import guarded
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
