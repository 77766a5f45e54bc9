"""The stakeholder page (/present?study=N) and the study in words, without a browser."""

import math

import pandas as pd
import pytest
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.testclient import TestClient

from arena import studies
from arena.store import Store
from evaluation import results as res
from evaluation import story
from evaluation.human import words as hw
from tests.support.seeding import publish, rate_every_output
from tests.support.stores import sqlite_url
from ui import i18n, present

NAME = '<script>alert(1)</script> "Q3" & co'


def pair(a, b, dim, d, lo, hi, p, n=20):
    return dict(dimension=dim, method_a=a, method_b=b, n_pairs=n, mean_diff=d, ci_low=lo, ci_high=hi, p_holm=p)


def test_takeaway_names_the_leader_and_how_sure():
    pw = pd.DataFrame(
        [
            pair("BS-4", "TS-Temp", "coherence", -0.8, -1.2, -0.4, 0.004),
            pair("BS-4", "TS-Tilted", "coherence", -0.5, -0.9, -0.1, 0.03),
            pair("TS-Temp", "TS-Tilted", "coherence", 0.3, 0.1, 0.5, 0.04),
            pair("BS-4", "TS-Temp", "naturalness", 0.1, -0.3, 0.5, 0.6),
        ]
    )
    s = story.takeaway(pw, 20, 180, 3)
    assert s.startswith("TS-Temp leads on coherence (probably: at least +0.30 points")
    assert "no clear leader on naturalness" in s and "N = 20 prompts, 180 ratings by 3 raters" in s


def test_takeaway_without_a_difference_says_so_with_n():
    pw = pd.DataFrame([pair("BS-4", "TS-Temp", "coherence", 0.1, -0.5, 0.7, 0.7)])
    assert (
        story.takeaway(pw, 4, 24, 2)
        == "No clear difference yet between the methods (N = 4 prompts, 24 ratings by 2 raters)."
    )
    assert story.takeaway(pd.DataFrame(), 0, 0, 0).startswith("No ratings yet")
    one = story.takeaway(
        pd.DataFrame(
            [pair("A", "B", "coherence", -1.0, -1.5, -0.5, 0.0004), pair("A", "C", "coherence", 0.1, -0.5, 0.6, 0.8)]
        ),
        30,
        90,
        1,
    )
    assert "B is rated above A on coherence by 1.00 points (very clearly" in one


def test_agreement_in_words():
    ag = pd.DataFrame(
        [
            {"dimension": "coherence", "alpha": -0.17, "raters": 3, "units_pairable": 9},
            {"dimension": "naturalness", "alpha": 0.85, "raters": 3, "units_pairable": 9},
        ]
    )
    words = story.agreement_words(ag)
    assert words.startswith("Raters disagree more than chance would on coherence α = -0.170")
    assert "agree well on naturalness α = 0.850" in words and "treat those scores with care" in words
    assert story.agreement_words(ag.iloc[1:]).startswith("Raters agree well on naturalness")
    assert "care" not in story.agreement_words(ag.iloc[1:])
    assert "not computable" in story.agreement_words(ag.assign(alpha=math.nan))


@pytest.mark.parametrize(
    "alphas, says, never",
    [
        ({"coherence": -0.05}, "disagree more than chance would on coherence", ()),
        # issue 24: 0.336 is low but above chance; it was called "disagree more than chance"
        ({"coherence": 0.336}, "often disagree on coherence α = 0.336", ("chance would",)),
        ({"coherence": 0.336, "naturalness": 0.1}, "barely agree on naturalness", ("chance would",)),
        ({"coherence": 0.91, "informativeness": 0.7}, "agree only tentatively on informativeness", ("chance would",)),
        ({"coherence": 0.0}, "barely agree", ("chance would",)),
    ],
)
def test_only_a_negative_alpha_is_worse_than_chance(alphas, says, never):
    ag = pd.DataFrame([{"dimension": d, "alpha": a, "raters": 3, "units_pairable": 9} for d, a in alphas.items()])
    words = story.agreement_words(ag)
    assert says in words and not any(n in words for n in never)
    for row in ag.to_dict("records"):  # the Results tab's line per dimension agrees with the headline
        line = hw.explain_alpha(row)
        assert ("more than chance" in line) == (row["alpha"] < 0)
        assert hw.agreement_level(row["alpha"]) in line


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


def fill(store, published=True, name=NAME):
    study = store.create_study(name, methods=["BS-4", "TS-Temp", "TS-Tilted"], max_new_tokens=8)
    items = store.add_items(study, [{"prompt": f"p{k}", "scenario": "<b>x</b>", "language": "en"} for k in range(4)])
    for item in items:
        ids = {}
        for k, method in enumerate(("BS-4", "TS-Temp", "TS-Tilted")):
            ids[method], _ = store.add_output(
                item,
                method,
                0,
                text=f"text {k} {item}",
                seed=0,
                model="SmolLM2",
                settings={"dtype": "float32", "batch_size": 1},
                new_tokens=8,
                latency_ms=250.0 * (k + 1),
            )
        rate_every_output(store, ids, [("Zelda Quux", 2), ("Yorick Vex", 3)])
    if published:
        publish(store, study)
    return study


def test_page_of_a_published_study_escapes_and_shows_everything(store):
    study = fill(store)
    status, page = present.render(store, str(study))
    assert status == 200
    assert (
        "<script>alert(1)</script>" not in page
        and "&lt;script&gt;alert(1)&lt;/script&gt; &quot;Q3&quot; &amp; co" in page
    )
    assert "<b>x</b>" not in page
    assert 'id="takeaway"' in page and "N = 4 prompts, 24 ratings by 2 raters" in page
    assert 'id="agreement"' in page and "Krippendorff" in page
    assert (
        "latency ms ↓ (measured while generating this study: see “How the timing was measured”)" in page
        and "coherence ↑" in page
        and "PPL" not in page.split("<table>")[1].split("</table>")[0]
    )
    assert "Model: SmolLM2 (Hugging Face); dtype: float32; generated in batches of 1" in page
    assert page.count('class="chart"') == 2 and present.PLOTLY_PATH in page
    assert "Zelda" not in page and "Yorick" not in page
    assert "<footer" not in page and "gradio" not in page.lower()


@pytest.mark.parametrize("state", ["draft", "open", "closed", "missing", "junk"])
def test_anything_but_a_published_study_gets_the_same_neutral_page(store, state):
    neutral = present.render(store, "999999")
    assert neutral[0] == 404 and present.NOT_FOUND in neutral[1]
    if state == "junk":
        for junk in (None, "", "abc", "1e9", "-1", "9" * 40):
            assert present.render(store, junk) == neutral
        return
    if state == "missing":
        return
    study = fill(store, published=False)
    if state == "open":
        studies.open_study(store, study) if store.get_study(study).state == "draft" else None
    if state == "closed":
        studies.close_study(store, study)
    assert present.render(store, str(study)) == neutral


def test_routes_serve_the_page_and_plotly(store):
    study = fill(store)
    client = TestClient(Starlette(routes=present.routes(lambda: store)))
    ok = client.get(f"/present?study={study}")
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/html")
    assert client.get("/present?study=424242").status_code == 404
    js = client.get(present.PLOTLY_PATH)
    assert js.status_code == 200 and len(js.content) > 1_000_000


def test_charts_use_the_1_to_5_scale_and_one_colour_per_method(store):
    view = present.study_view(store, fill(store))
    bars, scatter = view["figures"]
    assert tuple(bars.layout.yaxis.range) == (1, 5.05) and tuple(scatter.layout.yaxis.range) == (1, 5.05)
    assert [t.name for t in scatter.data] == ["BS-4", "TS-Temp", "TS-Tilted"]
    assert len({t.marker.color for t in scatter.data}) == 3 and "(ms)" in scatter.layout.xaxis.title.text
    assert set(res.method_colours(["BS-4", "TS-Temp"]).values()) <= set(res.PALETTE)


def test_page_is_cached_until_the_study_changes(store, monkeypatch):
    study = fill(store)
    first = present.render(store, study)
    calls = []
    monkeypatch.setattr(present, "study_view", lambda *a: calls.append(a) or pytest.fail("not cached"))
    assert present.render(store, f" {study} ") == first and not calls
    store.set_study_state(study, "open", allowed_from=("published",))  # unpublished again: neutral at once
    assert present.render(store, study)[0] == 404


def test_a_study_under_a_deleted_studys_id_gets_its_own_page(store):
    # SQLite gives a new study the id a deleted one freed: a rerun of a pilot under the same name, with
    # as many items, outputs, ratings and raters, was served the deleted study's cached page (issue 46)
    first = fill(store, name="Pilot")
    _, old = present.render(store, first)
    store.delete_study(first)
    # New databases never give an id again (AUTOINCREMENT, tests/test_delete.py); one made before did:
    # its counter is set back here, so the rerun takes the freed id as it would there
    with store.engine.begin() as conn:
        if store.dialect == "sqlite":
            conn.execute(text("UPDATE sqlite_sequence SET seq = :s WHERE name = 'studies'"), {"s": first - 1})
        else:
            conn.execute(text("SELECT setval(pg_get_serial_sequence('studies', 'id'), :s, false)"), {"s": first})
    rerun = fill(store, published=False, name="Pilot")
    assert rerun == first
    outputs = store.outputs_for_item(store.items(rerun)[0].id)
    store.save_rating(store.rater_id("Zelda Quux"), outputs[0].id, 5, 5, 5)  # another answer, the same counts
    publish(store, rerun)
    status, new = present.render(store, rerun)
    assert status == 200 and new != old and new == page_html_now(store, rerun)


def page_html_now(store, study):
    return present.page_html(present.study_view(store, study))


def test_results_tab_shows_the_story_and_links_the_stakeholder_page(store):
    from ui import results as tab

    study = fill(store)
    view = tab.compute_view(store, study)
    assert f"(/present?study={study})" in view["story"] and "Krippendorff" in view["story"]
    assert view["story"].startswith("**No clear difference yet") or " leads on " in view["story"]


# ---- the page in Chinese (issue 24) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "query, accept, lang",
    [
        (None, None, "en"),
        (None, "zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        (None, "zh-TW", "zh"),
        (None, "ZH", "zh"),
        (None, "en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        (None, "en;q=0.5,zh-HK;q=0.7", "zh"),
        (None, "zhx, de", "en"),
        (None, "zh;q=0, en", "en"),
        ("en", "zh-CN", "en"),
        ("zh", "en-GB", "zh"),
        ("fr", "zh-CN", "zh"),  # an unknown ?lang= falls back to the browser's language
    ],
)
def test_the_language_comes_from_the_query_else_the_browser(query, accept, lang):
    assert i18n.language_of(query, accept) == lang


def test_takeaway_and_agreement_in_chinese_say_what_the_english_says():
    pw = pd.DataFrame(
        [
            pair("BS-4", "TS-Temp", "coherence", -0.8, -1.2, -0.4, 0.004),
            pair("BS-4", "TS-Tilted", "coherence", -0.5, -0.9, -0.1, 0.03),
            pair("TS-Temp", "TS-Tilted", "coherence", 0.3, 0.1, 0.5, 0.04),
            pair("BS-4", "TS-Temp", "naturalness", 0.1, -0.3, 0.5, 0.6),
        ]
    )
    zh = story.takeaway(pw, 20, 180, 3, lang="zh")
    assert zh.startswith("TS-Temp 在连贯性上领先（很可能：在 1–5 分制上比其他每种方法至少高 +0.30 分")
    assert "在自然度上没有明确的领先者" in zh and zh.endswith("（N = 20 个提示词，3 位评分者的 180 条评分）。")
    assert (
        story.takeaway(pw.iloc[3:], 4, 24, 2, lang="zh")
        == "各方法之间还没有明确的差异（N = 4 个提示词，2 位评分者的 24 条评分）。"
    )
    assert story.takeaway(pd.DataFrame(), 0, 0, 0, lang="zh").startswith("还没有评分")
    two = pd.DataFrame(
        [pair("A", "B", "coherence", -1.0, -1.5, -0.5, 0.0004), pair("A", "C", "coherence", 0.1, -0.5, 0.6, 0.8)]
    )
    one = story.takeaway(two, 30, 90, 1, lang="zh")
    assert one.startswith("没有方法全面领先；最明显的差异：B 在连贯性上的评分比 A 高 1.00 分（非常明确，p = 0.0004")
    for alpha, level, careful in (
        (-0.05, "分歧比随机还大", True),
        (0.1, "几乎没有一致", True),
        (0.336, "经常意见不一", False),
    ):
        words = story.agreement_words(pd.DataFrame([{"dimension": "coherence", "alpha": alpha}]), lang="zh")
        assert words.startswith(f"评分者在连贯性（α = {alpha:.3f}）上{level}") and ("谨慎" in words) == careful
    good = story.agreement_words(pd.DataFrame([{"dimension": "naturalness", "alpha": 0.85}]), lang="zh")
    assert good.startswith("评分者在自然度（α = 0.850）上一致性好") and "谨慎" not in good
    assert "暂时无法计算" in story.agreement_words(pd.DataFrame(), lang="zh")


def test_the_page_in_chinese_keeps_the_numbers_methods_and_layout(store):
    study = fill(store)
    _, english = present.render(store, study)
    status, page = present.render(store, study, "zh")
    assert status == 200 and '<html lang="zh-CN">' in page and '<html lang="en">' in english
    for heading in ("每种方法", "图表", "计时是怎样测量的"):
        assert f"<h2>{heading}</h2>" in page
    assert f"研究 #{study} · 4 个提示词 · 2 位评分者的 24 条评分，双盲 · 方法：BS-4, TS-Temp, TS-Tilted" in page
    assert "连贯性 ↑" in page and "延迟 ms ↓" in page and "coherence ↑" not in page
    assert "（N = 4 个提示词，2 位评分者的 24 条评分）" in page and "Krippendorff α：" in page
    assert "模型：SmolLM2 (Hugging Face)；数据类型：float32；批大小 1" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    assert "Zelda" not in page and "PPL" not in page
    # Same layout: the same style, table, charts and their data; each page links the other language.
    assert page.count('class="chart"') == english.count('class="chart"') == 2
    assert present.STYLE in page and page.count("<tr>") == english.count("<tr>")
    assert (
        f'href="/present?study={study}&amp;lang=en"' in page and f'href="/present?study={study}&amp;lang=zh"' in english
    )
    for prose in ("Per method", "How the timing was measured", "double-blind", "Latency is the wall-clock"):
        assert prose in english and prose not in page
    assert present.render(store, "424242", "zh") == (404, present.page_html(None, "zh"))
    assert "没有这个编号的已发布研究。" in present.page_html(None, "zh")


def test_the_route_serves_chinese_to_a_chinese_browser_and_keeps_languages_apart_in_the_cache(store):
    study = fill(store)
    client = TestClient(Starlette(routes=present.routes(lambda: store)))
    zh = client.get(f"/present?study={study}", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    en = client.get(f"/present?study={study}", headers={"Accept-Language": "en-US"})
    forced = client.get(f"/present?study={study}&lang=en", headers={"Accept-Language": "zh-CN"})
    assert zh.status_code == en.status_code == forced.status_code == 200
    assert "每种方法" in zh.text and "Per method" in en.text and forced.text == en.text
    assert zh.headers["content-language"] == "zh" and "Accept-Language" in zh.headers["vary"]
    assert client.get("/present?study=424242&lang=zh").status_code == 404


def test_a_rubric_table_in_chinese_keeps_the_questions_and_says_where_an_interval_was_cut():
    """Issue 34: /present in Chinese left a rubric's columns and the "cut at the scale's top" note in
    English. The question stays in the organizer's words, with its scale; the note is translated."""
    import pandas as pd

    from common.rubric import Rubric
    from evaluation import results as res

    rubric = Rubric.from_dict({"dimensions": [{"name": "quality", "low": 1, "high": 10}]})
    names = res.column_names(rubric)
    table = pd.DataFrame([{"method": "BS-4", names["quality"]: "9.1 [7.0–10.0, cut at the scale’s top]"}])
    zh = res.table_in(table, rubric, "zh")
    assert list(zh.columns)[1] == "quality（1-10 分）↑"
    assert zh.iloc[0, 1] == "9.1 [7.0–10.0, 在量表上端截断]"


def test_the_per_method_table_comes_before_the_exclusion_table(store):
    view = present.study_view(store, fill(store))
    view["exclusion"] = ["The rule set at creation excluded 1 rater."]
    view["sensitivity"] = pd.DataFrame([["BS-4 vs TS-Temp", "coherence", 0.1, 0.2, "yes", "yes", "no"]],
                                       columns=[f"c{k}" for k in range(7)])  # fmt: skip
    page = present.page_html(view)
    headline = page.index("<h2>Per method</h2>")
    assert headline < page.index("excluded 1 rater") and headline < page.index('id="sensitivity"')


def test_a_chart_of_one_prompt_says_1_prompt():
    means = pd.DataFrame(
        [dict(method="BS-4", dimension="coherence", mean=3.0, ci_low=2.0, ci_high=4.0, n=n) for n in (1, 4)]
    )
    means.loc[1, "method"] = "TS-Temp"
    fig = res.scores_figure(means)
    assert [list(t.customdata) for t in fig.data] == [["1 prompt"], ["4 prompts"]]
    assert all("(%{customdata})" in t.hovertemplate for t in fig.data)
