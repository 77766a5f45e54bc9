"""Chinese everywhere a person reads /present and the rating pages (issue 47), without a browser:
every English sentence source those pages use has its Chinese in common/messages.py, /present rendered
in Chinese in each state (exclusions, none, nobody excluded, no ratings, no such study; a pairwise study
with votes and without, its takeaway and lines in every state of its ratings), the pairwise panel's
handlers in a Chinese browser's session (an item, after a vote, the question, the done page, the
refusals) and the 1-5 page's blind question with its status lines and refusals leave no English word but
names, numbers and tests/support/english_left.py's allow-list; and the English of each stays word for word
as it was (other tests read it)."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from arena.access import invites
from arena.rating import guessing, pair_rating
from arena.store import Store, vote_store
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from common import messages
from common.errors import UserError
from evaluation import blinding, report
from evaluation import pairwise as pw
from evaluation import results as res
from evaluation.human import quality
from tests.support.english_left import english_words, html_texts
from tests.support.seeding import publish
from tests.support.stores import sqlite_url
from ui import i18n, present
from ui.rate import pairwise

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
NAME = "海边研究"  # a study's own name stays as written: a Chinese one keeps the check strict


def zh_request() -> SimpleNamespace:
    return SimpleNamespace(
        headers={"accept-language": "zh-CN,zh;q=0.9"}, client=SimpleNamespace(host="203.0.113.8"), cookies={}
    )


@pytest.fixture
def store(tmp_path):
    s = Store(sqlite_url(tmp_path))
    yield s
    s.dispose()


# ---- every English source has its Chinese ---------------------------------------------------------


def test_every_english_key_of_these_pages_has_a_chinese_entry():
    """The sources the two pages take their words from, each looked up in the one table."""
    for name in quality.RULES:  # the exclusion rules a study may set, in the exclusion sentence
        assert quality.rule_words(name) == quality.RULES[name]
        assert language_of(quality.rule_words(name, "zh")) == "zh", name
    for key, english in report.SENSITIVITY_NAMES.items():
        assert report.sensitivity_names("zh")[key] != english
    for winner, english in pair_rating.WINNER_LABELS.items():
        assert messages.text(f"pair_winner_{winner}", "zh") != english
    # what the pairwise panel shows as fixed text, translated in the browser by ui/i18n.py's table
    fixed = [*vote_store.REASONS.values(), *SKIP_REASONS.values(), *FLAG_REASONS.values(), pairwise.WHOLE_ITEM]
    fixed += [f"{label} ({k})" for k, label in enumerate(pair_rating.WINNER_LABELS.values(), start=1)]
    fixed += ["Response A", "Response B", messages.english("pair_guidelines"), pairwise.GUESS_INTRO]
    assert [text for text in fixed if text not in i18n.ZH] == []
    for key, (english, chinese) in messages.MESSAGES.items():  # and the table itself: both, every id
        assert english.strip() and chinese.strip(), key


def language_of(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


@pytest.mark.parametrize(
    "row",
    [
        {"index": 0.62, "ci_low": 0.3, "ci_high": 0.9, "correct": 9, "dont_know": 1},  # not kept
        {"index": 0.05, "ci_low": -0.2, "ci_high": 0.3, "correct": 4, "dont_know": 0},  # chance
        {"index": -0.5, "ci_low": -0.8, "ci_high": -0.2, "correct": 1, "dont_know": 2},  # wrong
        {"index": math.nan, "ci_low": math.nan, "ci_high": math.nan, "correct": 0, "dont_know": 6},  # all "don't know"
        {"index": math.nan, "ci_low": math.nan, "ci_high": math.nan, "correct": 0, "dont_know": 0, "n": 0},
    ],
)
def test_the_blinding_lines_in_chinese(row):
    row = {
        "target_method": "BS-4",
        "n": 6,
        "items": 3,
        "chance": 0.5,
        "pooled_index": 0.7,
        "max_answers_per_item": 2,
        **row,
    }
    assert english_words(blinding.words(row, "zh")) == [], blinding.words(row, "zh")
    assert blinding.words(row) == blinding.words(row, "en")


# ---- /present in Chinese, in each state ----------------------------------------------------------


def published(store: Store, rules: tuple[str, ...] = (), failing: tuple[str, ...] = (), rated: bool = True) -> int:
    """A published 1-5 study of four prompts and three methods, rated by four raters (`failing` failed
    an attention item), with exclusion `rules` set at creation."""
    sid = store.create_study(
        NAME, model="seeded", methods=list(METHODS), settings={m: {} for m in METHODS}, exclusion_rules=rules
    )
    items = store.add_items(sid, [{"prompt": f"提示词 {k}", "scenario": "seeded", "language": "zh"} for k in range(4)])
    outputs = {}
    for item in items:
        for j, method in enumerate(METHODS):
            outputs[item, method], _ = store.add_output(
                item, method, 0, text=f"回答 {j} {item}", settings={"dtype": "float32", "batch_size": 2}, seed=1,
                model="seeded", new_tokens=4, latency_ms=900.0 + 100 * j, tokens_per_s=10.0,
            )  # fmt: skip
    for r, rater in enumerate(("ann", "ben", "cho", "dee") if rated else ()):
        rid = store.rater_id(rater)
        store.study_rater_index(sid, rid)
        store.record_attention(sid, rid, rater not in failing)
        for k, item in enumerate(items):
            for j, method in enumerate(METHODS):
                store.save_rating(rid, outputs[item, method], min(5, 2 + j + (k + r) % 2), 3 + (j == 1), min(5, 2 + j))
    publish(store, sid)
    return sid


STATES = {
    "exclusions": dict(rules=("attention", "straight-lining"), failing=("dee",)),
    "a rule that excluded nobody": dict(rules=("attention",)),
    "no rule": {},
    "no ratings": dict(rated=False),
}


@pytest.mark.parametrize("state", STATES)
def test_present_in_chinese_leaves_no_english(store, state):
    sid = published(store, **STATES[state])
    status, page = present.render(store, sid, "zh")
    assert status == 200
    left = english_words(html_texts(page), {"seeded", "float32"})  # the model and its dtype: names
    assert left == [], f"English left on /present ({state}) in Chinese: {left}"
    if state == "exclusions":
        assert "4 位评分者中有 1 位按创建研究时设定的规则被排除" in page and 'id="sensitivity"' in page
        assert "图表" in page and "质量 ↑ 对比延迟 ↓" in page and "连贯性" in page


def test_present_says_the_same_in_english_as_before(store):
    """The English page: the exclusion and sensitivity sentences, the table and the charts as they were
    written before they came from the table of messages (their words, fixed here)."""
    sid = published(store, **STATES["exclusions"])
    _, page = present.render(store, sid, "en")
    for said in (
        "1 of 4 raters excluded by the rule set at creation (failed any attention item; gave the same score to "
        "every response or on every question).",
        "With and without the 1 excluded rater: the same conclusions at α = 0.05 (adjusted over the family), so "
        "they do not hinge on the exclusion.",
        "With every rater and without the excluded, side by side",
        "every rater: a − b [95% CI]",
        "BS-4 vs TS-Temp",
        "(no interval)",
        "Human scores ↑ (mean over prompts, 95% CI)",
        "Quality ↑ against latency ↓ (markers: circle = coherence, square = informativeness, diamond = naturalness)",
        "mean latency per output (ms) ↓",
        "mean score (1 = worst, 5 = best) ↑",
        "(%{customdata})",
        "4 prompts",
    ):
        assert said in html_texts(page), said
    assert english_words(html_texts(page)) != []  # the finder does find English


def test_no_published_study_in_chinese(store):
    status, page = present.render(store, 999, "zh")
    assert status == 404 and english_words(html_texts(page)) == []


def test_a_rubric_studys_charts_keep_its_questions_and_translate_the_rest():
    from common.rubric import Rubric

    rubric = Rubric.from_dict({"dimensions": [{"name": "quality", "low": 1, "high": 10}]})
    means = res.pd.DataFrame(
        [{"method": m, "dimension": "quality", "mean": 5.0, "ci_low": 4.0, "ci_high": 6.0, "n": 4} for m in METHODS]
    )
    figure = res.scores_figure(means, rubric=rubric, lang="zh")
    assert list(figure.data[0].x) == ["quality"] and figure.layout.yaxis.title.text == "评分（1 = 最差，10 = 最好）"


# ---- the pairwise rating page in a Chinese browser -----------------------------------------------


def pair_study(store: Store, state: str = "open") -> tuple[int, str]:
    sid = store.create_study(
        NAME, methods=list(METHODS[:2]), settings={m: {} for m in METHODS[:2]}, design="pairwise",
        guess_methods=["TS-Temp"],
    )  # fmt: skip
    for iid in store.add_items(sid, [{"prompt": f"提示词 {k}", "scenario": "s"} for k in range(2)]):
        for m in METHODS[:2]:
            store.add_output(iid, m, 0, text=f"{m} 写的回答 {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, ["评分者"])
    if state != "open":
        from arena import studies

        studies.close_study(store, sid)
    return sid, made.code


def shown(view: pairwise.PairView) -> str:
    """What the panel shows of a view: progress, texts, status and the question's labels."""
    radios = pairwise.asking(list(view.asked), True, view.session.get("lang", "en"))[2:]
    labels = [r.label for r in radios if r.visible]
    return " ".join([view.progress, html_texts(view.text_a), html_texts(view.text_b), view.status, *labels])


def test_the_pairwise_page_in_chinese_in_each_state(store):
    from ui.rate import handlers as h

    sid, code = pair_study(store)
    opened = h.on_start(store, code, {}, zh_request())
    _, guide, *values = opened.pair
    sess = values[0]
    assert sess["lang"] == "zh" and i18n.plain(guide) == messages.english("pair_guidelines")
    assert str(guide).startswith(i18n.MARK)  # the default guidelines go to the browser marked for its table
    first = pairwise.PairView.of(*pair_rating.open_for(store, invites.resolve(store, code)), sess)
    assert "第 1 题，共 2 题 · 你已评判 0 / 2 题" in first.progress and "回答 A" in first.text_a
    views = {"item": first}
    views["voted"] = pairwise.on_vote(store, "a", code, sess, [], "", zh_request())
    assert "你的投票：A 更好" in views["voted"].progress and views["voted"].asked == ("TS-Temp",)
    views["answered"] = pairwise.on_guess(store, zh_request(), code, views["voted"].session, "A")
    views["skipped"] = pairwise.on_skip(store, code, views["answered"].session, "language", "", zh_request())
    views["skipped"] = pairwise.PairView(*views["skipped"][:8])  # the view's own values: session … status
    views["back"] = pairwise.on_move(store, -1, code, views["skipped"].session, zh_request())
    views["done"] = pairwise.on_vote(store, "tie", code, views["back"].session, [], "", zh_request())
    views["done"] = pairwise.on_guess(store, zh_request(), code, views["done"].session, guessing.DONT_KNOW)
    for state, view in views.items():
        assert english_words(shown(view), {NAME}) == [], (state, shown(view))
    assert "你已评判本研究的全部 2 道题" in views["done"].progress
    line, _ = pairwise.on_flag(store, code, views["back"].session, "Response B", "broken", "", zh_request())
    assert line == "已报告回答 B。组织者会看到；请继续投票。"


def test_the_pairwise_refusals_in_chinese(store):
    """Every refusal the panel raises is found in the table and shown in Chinese (ui/handler.py)."""
    sid, code = pair_study(store)
    sess = {"study_id": sid, "lang": "zh"}
    refusals = []
    for attempt in (
        lambda: pairwise.on_vote(store, "a", code, sess, [], "", zh_request()),
        lambda: pairwise.on_guess(store, zh_request(), code, sess),
        lambda: pairwise.on_move(store, -1, code, {**sess, "item": "x", "index": 1}, zh_request()),
        lambda: pairwise.on_skip(store, code, {**sess, "item": "x"}, None, "", zh_request()),
        lambda: pairwise.on_flag(store, code, {**sess, "item": "x"}, "Response C", "broken", "", zh_request()),
        lambda: pairwise.on_vote(store, "a", code, {**sess, "item": "nope"}, [], "", zh_request()),
        lambda: pairwise.on_vote(store, "a", code, {}, [], "", zh_request()),
    ):
        with pytest.raises(UserError) as caught:
            attempt()
        refusals.append(i18n.translated(str(caught.value), "zh"))
    assert all(english_words(r) == [] for r in refusals), refusals
    _, closed = pair_study(store, "closed")
    with pytest.raises(UserError) as caught:
        pair_rating.open_for(store, invites.resolve(store, closed))
    assert i18n.translated(str(caught.value), "zh") == "本研究已关闭：评分已结束。谢谢！"


def test_the_pairwise_page_in_english_as_before(store):
    sid, code = pair_study(store)
    en = SimpleNamespace(headers={"accept-language": "en-US"}, client=SimpleNamespace(host="203.0.113.9"), cookies={})
    from ui.rate import handlers as h

    sess = h.on_start(store, code, {}, en).pair[2]
    voted = pairwise.on_vote(store, "b", code, sess, [], "", en)
    assert (
        voted.progress == "**Item 1 of 2 · you have judged 1 of 2** · your vote: B is better (voting again replaces it)"
    )
    assert voted.status == "Saved. One more question about this item."
    assert pairwise.asking(list(voted.asked))[2].label == "If one of these came from TS-Temp, which one?"
    assert 'aria-label="Response A"' in voted.text_a
    done = pairwise.on_guess(store, en, code, voted.session, "B")
    assert done.status == "Thank you. Here is the next item."


# ---- a pairwise study on /present in Chinese -----------------------------------------------------


def voted_pair_study(store: Store, voted: bool = True, name: str = NAME, token: str = "") -> int:
    """A published pairwise study of six prompts and three methods (lengths differ by method), each of three
    raters voting once per prompt on a fixed pair and answering which response came from TS-Temp (`token`
    tells them from other tests' raters in a shared database)."""
    sid = store.create_study(
        name, methods=list(METHODS), settings={m: {} for m in METHODS}, design="pairwise", guess_methods=["TS-Temp"]
    )
    items = store.add_items(sid, [{"prompt": f"提示词 {k}", "scenario": "s"} for k in range(6)])
    out = {}
    for iid in items:
        for j, m in enumerate(METHODS):
            out[iid, m], _ = store.add_output(
                iid, m, 0, text=f"{m} 写的回答 {iid}", settings={}, seed=1, model="m", new_tokens=4 + 3 * j
            )
    pairs = [(0, 1), (1, 2), (0, 2)]
    for r, rater in enumerate(("ann", "ben", "cho") if voted else ()):
        rid = store.rater_id(rater + token)
        store.study_rater_index(sid, rid)
        for k, iid in enumerate(items):
            i, j = pairs[(k + r) % 3]
            a, b = (METHODS[i], METHODS[j]) if (k + r) % 2 else (METHODS[j], METHODS[i])
            store.save_vote(rid, iid, out[iid, a], out[iid, b], ("a", "b", "tie", "a")[(k + r) % 4])
            true = 0 if a == "TS-Temp" else 1
            store.save_guesses(rid, iid, [("TS-Temp", 2, (0, None, 1)[(k + r) % 3], true)])
    publish(store, sid)
    return sid


@pytest.mark.parametrize("voted", [True, False], ids=["votes", "no votes"])
def test_a_pairwise_present_in_chinese_leaves_no_english(store, voted):
    sid = voted_pair_study(store, voted)
    status, page = present.render(store, sid, "zh")
    assert status == 200
    left = english_words(html_texts(page))
    assert left == [], f"English left on a pairwise /present in Chinese: {left}"
    if voted:  # the takeaway, the table's cells, the lines under it and the blinding line
        assert "没有哪个系统明显领先于另一个" in page and "是：12 次投票（少于 30 次）；6 道题（少于 10 道）" in page
        assert "TS-Tilted 的评分是暂定的" in page and "长度效应无法从这些投票中估计" in page
        assert "评分者在 75% 的猜测中选中了 TS-Temp" in page and "无法从这些投票中估计（投票太少）</td>" in page
    else:
        assert "还没有投票：无从排名。" in page and "还没有投票。" in page


def test_a_pairwise_present_says_the_same_in_english_as_before(store):
    """The English page word for word as it was before its words came from the table of messages."""
    _, page = present.render(store, voted_pair_study(store), "en")
    text = re.sub(r"\s+", " ", html_texts(page))
    for said in (
        "No system is clearly ahead of another: every difference is within its 95% interval of zero (18 votes on 6 "
        "items from 3 raters).",
        "– TS-Tilted 1158 [945, 1371] not estimable from these votes (too few) 12 6 8 / 1 / 3 yes: 12 votes (fewer "
        "than 30); 6 items (fewer than 10)",
        "TS-Temp is provisional (12 votes (fewer than 30); 6 items (fewer than 10)): no rank until it has more votes.",
        "The length effect is not estimable from these votes (too few): its 95% interval is wider than 1200 Elo points.",
        "Raters picked TS-Temp in 75% of their guesses (chance 50%): consistent with chance: no sign that raters "
        "could tell TS-Temp (blinding index +0.33, 95% CI -0.04 to +0.59, over 6 items; 6 of 18 answers were \"don't "
        'know"; 1 = always recognised, 0 = chance).',
    ):
        assert said in text, said
    empty = present.render(store, voted_pair_study(store, voted=False), "en")[1]
    assert "No votes yet: nothing to rank." in empty


def votes(pairs, winners, n: int = 40, raters: int = 3, lengths=None) -> pd.DataFrame:
    """`n` votes cycling through `pairs` and `winners` over 12 items, with (len_a, len_b) = lengths(k)."""
    rows = []
    for k in range(n):
        a, b = pairs[k % len(pairs)]
        row = {"study_id": "1", "item_id": f"i{k % 12}", "rater": f"r{k % raters}", "system_a": a, "system_b": b,
               "winner": winners[k % len(winners)]}  # fmt: skip
        if lengths is not None:
            row["len_a"], row["len_b"] = lengths(k)
        rows.append(row)
    return pd.DataFrame(rows)


def clear_order(seed: int = 1) -> pd.DataFrame:
    """300 votes of 7 raters on 40 items among X, Y and Z, X far the strongest, with random lengths."""
    rng = np.random.default_rng(seed)
    strength = {"X": 2.0, "Y": 0.5, "Z": 0.0}
    rows = []
    for k in range(300):
        a, b = rng.choice(list(strength), 2, replace=False)
        won = rng.random() < 1 / (1 + math.exp(strength[b] - strength[a]))
        rows.append(
            {"study_id": "1", "item_id": f"i{k % 40}", "rater": f"r{k % 7}", "system_a": a, "system_b": b,
             "winner": "a" if won else "b", "len_a": int(rng.integers(20, 100)), "len_b": int(rng.integers(20, 100))}
        )  # fmt: skip
    return pd.DataFrame(rows)


# Each state of a pairwise study's ratings, with its explanation lines in English as they were written
# before they came from the table of messages.
RATING_STATES = {
    "systems that win or lose every comparison": (
        votes([("X", "Y"), ("X", "Z"), ("Y", "Z")], ["a"]),
        [
            "No system is clearly ahead of another: the votes give no interval to tell them apart (40 votes on 12 "
            "items from 3 raters).",
            "X is provisional (27 votes (fewer than 30); 8 items (fewer than 10)): no rank until it has more votes.",
            "Y is provisional (27 votes (fewer than 30); 8 items (fewer than 10); it and the systems level with it "
            "never beat the rest): no rank until it has more votes.",
            "Z is provisional (26 votes (fewer than 30); 8 items (fewer than 10); lost every comparison): no rank "
            "until it has more votes.",
            "No finite maximum-likelihood ratings: Y it and the systems level with it never beat the rest, Z lost "
            "every comparison. The ratings add one virtual tie per system against an average one; those systems "
            "have no interval, and the scale is centred on the others.",
            "No interval for X: their votes never vary, so nothing says how far the rating could be off.",
        ],
    ),
    "systems never compared": (
        votes([("X", "Y"), ("Z", "W")], ["a", "b", "a"]),
        [
            "No system is clearly ahead of another: every difference is within its 95% interval of zero (40 votes "
            "on 12 items from 3 raters).",
            "Z is provisional (20 votes (fewer than 30); 6 items (fewer than 10)): no rank until it has more votes.",
            "W is provisional (20 votes (fewer than 30); 6 items (fewer than 10)): no rank until it has more votes.",
            "X is provisional (20 votes (fewer than 30); 6 items (fewer than 10); never compared with the main set "
            "of systems): no rank until it has more votes.",
            "Y is provisional (20 votes (fewer than 30); 6 items (fewer than 10); never compared with the main set "
            "of systems): no rank until it has more votes.",
            "Some systems were never compared, even through others: W, Z | X, Y. Each set is on its own scale (mean "
            "1000); ratings across sets cannot be compared.",
        ],
    ),
    "every vote a tie": (
        votes([("X", "Y")], ["tie", "bothbad"]),
        [
            "No system is clearly ahead of another: the votes give no interval to tell them apart (40 votes on 12 "
            "items from 3 raters).",
            "Every vote was a tie or 'both bad': the votes cannot tell the systems apart, and no interval can be "
            "built from them (every rating is the scale's centre, 1000).",
        ],
    ),
    "one rater": (
        votes([("X", "Y")], ["a", "a", "b"], n=8, raters=1),
        [
            "No system is clearly ahead of another: every difference is within its 95% interval of zero (8 votes "
            "on 8 items from 1 raters).",
            "X is provisional (8 votes (fewer than 30); 8 items (fewer than 10)): no rank until it has more votes.",
            "Y is provisional (8 votes (fewer than 30); 8 items (fewer than 10)): no rank until it has more votes.",
            "One rater: the intervals say how sure these votes make us of this rater's preferences, not of raters' "
            "in general.",
        ],
    ),
    "answers as long as their rivals": (
        votes([("X", "Y")], ["a", "a", "b"], lengths=lambda k: (50, 50)),
        [
            "No system is clearly ahead of another: every difference is within its 95% interval of zero (40 votes "
            "on 12 items from 3 raters).",
            "Every answer in these votes has the same length as its rival: length cannot be controlled for.",
        ],
    ),
    # numbers of a bootstrap: the English checked by its shape
    "a clear order, and length": (
        clear_order(),
        [
            r"Ranks supported at 95%: X \(1\), Y \(2(–3)?\), Z \((2–)?3\) \(a range: the data cannot place it more "
            r"exactly\)\.",
            r"X is ahead of [YZ] by \d+ Elo points \(95% CI \d+ to \d+\): it would win about \d+% of their comparisons\.",
        ],
    ),
}


@pytest.mark.parametrize("state", RATING_STATES)
def test_a_pairwise_studys_lines_in_chinese_in_every_state(state):
    frame, english = RATING_STATES[state]
    result = pw.rate(pw.check_votes(frame), n_resamples=100)
    lines = pw.explain(result)
    assert lines == pw.explain(result, "en")
    if state == "a clear order, and length":
        assert all(re.fullmatch(said, line) for said, line in zip(english, lines)), lines
        assert re.fullmatch(r"(No clear length effect|Length sways the votes): .*\.", lines[-1]), lines[-1]
    else:
        assert lines == english
    zh = pw.explain(result, "zh")
    table = leaderboard_cells(result, "zh")
    assert len(zh) == len(lines) and english_words(" ".join(zh + table), {"X", "Y", "Z", "W"}) == [], zh + table


def leaderboard_cells(result: pw.StudyRatings, lang: str) -> list[str]:
    from evaluation.pairwise_view import leaderboard_table

    return [str(v) for row in leaderboard_table(result, lang).itertuples(index=False) for v in row]


# ---- the 1-5 page's blind question in a Chinese browser ------------------------------------------


def guess_study(store: Store, name: str = NAME, rater: str = "评分者") -> str:
    """An open 1-5 study of two prompts that asks which response came from BS-4; an invite code."""
    sid = store.create_study(name, methods=list(METHODS), settings={m: {} for m in METHODS}, guess_methods=["BS-4"])
    for iid in store.add_items(sid, [{"prompt": f"提示词 {k}", "scenario": "s"} for k in range(2)]):
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} 写的回答 {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, [rater])
    return made.code


def test_the_rating_pages_blind_question_in_chinese(store):
    from ui.rate import handlers as h
    from ui.rate.view import SLOTS, form

    code = guess_study(store)
    sess = h.on_start(store, code, {}, zh_request()).rate.session
    refusals = []
    with pytest.raises(UserError) as caught:  # asked before the item is scored
        h.on_guess(store, zh_request(), code, sess, "A", *[None] * (SLOTS - 1))
    refusals.append(str(caught.value))
    scored = h.on_submit(store, zh_request(), code, sess, *form([[4] * 3] * 3))
    assert scored.status == "已保存。关于此题还有一个问题，显示在回答的位置。", scored.status
    box, radio, *_ = h.on_guess_layout(scored.guess_ask, zh_request())
    assert box.visible and radio.label == "你认为哪条回答来自 BS-4？" and radio.choices[-1][0] == guessing.DONT_KNOW
    assert guessing.DONT_KNOW in i18n.ZH  # the choice the browser translates
    for answers in ([None], ["Z"]):  # no answer; a letter not shown
        with pytest.raises(UserError) as caught:
            h.on_guess(store, zh_request(), code, scored.session, *answers, *[None] * (SLOTS - 1))
        refusals.append(str(caught.value))
    said = [i18n.translated(r, "zh") for r in refusals]
    assert said == ["请先为此题的每条回答打分；问题在打分之后", "请回答每个问题，或选择“不知道”", "此题中没有回答 'Z'"]
    after = h.on_guess(store, zh_request(), code, scored.session, guessing.DONT_KNOW, *[None] * (SLOTS - 1))
    assert after.status == "谢谢。下面是下一题。" and "第 2 题，共 2 题" in after.progress
    for line in (scored.status, scored.progress, radio.label, after.status, after.progress):
        assert english_words(line, {NAME}) == [], line


def test_the_rating_pages_blind_question_in_english_as_before(store):
    from ui.rate import handlers as h

    assert (
        h.on_guess_layout({"methods": ["BS-4"], "shown": 3})[1].label == "Which response do you think came from BS-4?"
    )
    en = SimpleNamespace(headers={"accept-language": "en-US"})
    assert h.on_guess_layout({"methods": ["BS-4"], "shown": 3}, en)[1].label == guessing.question("BS-4")
    with pytest.raises(UserError, match="^there is no response 'Z' in this item$"):
        guessing.parse_answers({"BS-4": "Z"}, 3)
    assert messages.english("guess_score_first") == "score every response of this item first; the question comes after"
    assert messages.english("guess_not_asked") == "that question is not asked in this study"
