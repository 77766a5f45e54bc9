"""The form check (evaluation/form_cues.py): surface features, a leave-one-item-out classifier that
finds a method that gives itself away by its form and does not find one that does not, and when the
organizer may see it (before rating starts, after the study closes; both databases)."""

from __future__ import annotations

import random

import pytest

from arena import studies
from arena.access import invites
from arena.rating import blind
from common.errors import UserError
from evaluation import form_cues

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
WORDS = "the a of river stone light quiet moved over under slowly bright city morning small old".split()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def test_surface_features_of_one_response():
    f = form_cues.surface_features("It was late. It was late. It was late.", 12, "eos", 32)
    assert f["stopped"] == 1.0 and f["sentence_end"] == 1.0 and f["loop"] == 1.0
    assert f["tokens"] == 12 and f["characters"] == len("It was late. It was late. It was late.")
    assert 0 < f["repeated_3grams"] < 1 and f["distinct_1"] == pytest.approx(4 / 12)
    cut = form_cues.surface_features("and then the river went on and", 32, "length", 32)
    assert cut["stopped"] == 0.0 and cut["sentence_end"] == 0.0 and cut["loop"] == 0.0
    # no stored stop reason: it stopped by itself if it is shorter than max tokens
    assert form_cues.surface_features("Hi.", 3, None, 32)["stopped"] == 1.0
    assert form_cues.surface_features("你好。", 3, None, 3)["sentence_end"] == 1.0


def test_a_method_that_stops_early_is_found_with_its_remedy():
    rng = random.Random(3)
    rows = []
    for i in range(10):
        rows.append(dict(item_id=i, method="BS-4", text=sentence(rng, 9) + ".", new_tokens=10, finish_reason="eos"))
        for m in METHODS[1:]:
            rows.append(dict(item_id=i, method=m, text=sentence(rng, 30), new_tokens=32, finish_reason="length"))
    result = form_cues.recognisability(form_cues.feature_frame(rows)).set_index("method")
    assert result.loc["BS-4", "correct"] == 10 and result.loc["BS-4", "recognisable"]
    assert result.loc["BS-4", "cue"] in ("stopped", "tokens", "characters", "sentence_end")
    assert result.loc["BS-4", "remedy"]
    lines = form_cues.summary_lines(result.reset_index())
    assert lines[0].startswith("BS-4: a classifier that sees only the form picked it out in 10 of 10 items")
    assert "Remedy:" in lines[0]


def test_methods_of_one_form_are_not_found_more_often_than_chance_says():
    """100 studies where every method writes the same kind of text: a method is called recognisable
    (p < 0.05) in about 5% of them or fewer, and ties never favour the first method stored."""
    rng = random.Random(11)
    found = {m: 0 for m in METHODS}
    studies_run = 100
    for _ in range(studies_run):
        rows = []
        for i in range(8):
            for m in METHODS:
                n = rng.randint(10, 32)
                stopped = n < 32
                text = sentence(rng, n) + ("." if stopped else "")
                rows.append(
                    dict(item_id=i, method=m, text=text, new_tokens=n, finish_reason="eos" if stopped else "length")
                )
        result = form_cues.recognisability(form_cues.feature_frame(rows))
        for r in result.to_dict("records"):
            found[r["method"]] += r["recognisable"]
    assert all(n / studies_run <= 0.08 for n in found.values()), found
    same = [dict(item_id=i, method=m, text="Same text.", new_tokens=3) for i in range(30) for m in METHODS]
    result = form_cues.recognisability(form_cues.feature_frame(same)).set_index("method")
    assert (result["correct"] < 20).all() and not result["recognisable"].any(), result  # 10 of 30 expected


def test_too_few_items_say_so():
    rows = [dict(item_id=i, method=m, text="x", new_tokens=1) for i in range(2) for m in METHODS]
    result = form_cues.recognisability(form_cues.feature_frame(rows))
    assert (result["items"] == 0).all()
    assert "too few items" in form_cues.summary_lines(result)[0]


def test_the_organizer_sees_it_before_rating_starts_and_after_the_study_closes(store):
    sid = store.create_study("form", methods=list(METHODS), settings={m: {} for m in METHODS}, max_new_tokens=32)
    iids = store.add_items(sid, [{"prompt": f"p{k}"} for k in range(4)])
    rng = random.Random(5)
    for iid in iids:
        for m in METHODS:
            n = 8 if m == "BS-4" else 32
            store.add_output(iid, m, 0, text=sentence(rng, n), settings={}, seed=1, model="m", new_tokens=n)
    assert len(form_cues.study_report(store, sid)) == 3  # open, nobody rated yet
    [made] = invites.invite(store, sid, ["ann"])
    enrolment = invites.resolve(store, made.code)
    view, _ = blind.open_for(store, sid, lambda: enrolment.rater_id)
    blind.submit_slots_then_next(store, enrolment, view.item, [[3, 3, 3]] * 3 + [[None] * 3] * 5, [None] * 8)
    with pytest.raises(UserError, match="raters have started rating"):
        form_cues.study_report(store, sid)
    studies.close_study(store, sid)
    result = form_cues.study_report(store, sid).set_index("method")
    assert result.loc["BS-4", "cue"] in ("stopped", "tokens", "characters")  # 8 tokens of 32: stopped by itself
    with pytest.raises(UserError, match="no study"):
        form_cues.study_report(store, sid + 99)
