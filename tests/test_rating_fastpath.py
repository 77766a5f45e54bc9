"""The blind Submit's fast path: one event, plain values, its own input checks, and remembered facts
that can never go stale.

Submit is the handler many raters hit at once, so it is wired without Gradio's per-component
pre/postprocessing and without `gr.update`s (each of which rebuilds a component on the server);
these tests pin that down and check that nothing it skips weakens validation or blindness.
"""

from __future__ import annotations

import json

import gradio as gr
import pytest
from sqlalchemy import delete, event, text
from sqlalchemy.exc import OperationalError

from arena.access import invites
from arena.rating import blind
from arena.store import Store
from arena.store.schema import assignments, items, outputs, ratings, studies, study_raters
from ui import AppContext, rate
from ui.rate.view import ROWS, RateView
from ui.rate.view import form as rate_form

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


def seed(store: Store, tag: str, n_items: int = 2) -> tuple[int, list[int]]:
    sid = store.create_study(f"fast path {tag}", methods=METHODS, samples_per_method=1, max_new_tokens=8)
    iids = store.add_items(sid, [{"prompt": f"prompt {tag} {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            store.add_output(
                iid,
                m,
                0,
                text=f"{tag} text {k} of item {iid}",
                settings={"method": m},
                seed=3,
                model="m",
                new_tokens=4,
                latency_ms=111.5,
                ttft_ms=22.5,
                tokens_per_s=33.5,
            )
    return sid, iids


def code_for(store: Store, sid: int, name: str) -> str:
    [made] = invites.invite(store, sid, [name])
    return made.code


def start(fns, code: str) -> dict:
    """rate_start in-process (no request: the client counts as "local"); its outputs are the
    "Rating as ..." line, then the session."""
    return fns["rate_start"].fn(code, {}, None)[1]


def submit(fns, code: object, sess, *values):
    """rate_submit in-process: Gradio passes the request first."""
    return fns["rate_submit"].fn(None, code, sess, *values)


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


@pytest.fixture
def tab(store):
    with gr.Blocks() as demo:
        rate.build(AppContext(model=lambda: None, extras={"store": store}))
    fns = {f.api_name: f for f in demo.fns.values() if f.api_name}
    layout = [f for f in demo.fns.values() if f.name == "on_layout"]
    return demo, fns, layout


def radios_and_notes(scores, notes=None) -> list:
    """Submit's values: each response's answers in its rows (ui/rate/view.py form), then the comments."""
    return rate_form([list(triple) for triple in scores], list(notes or []))


def test_submit_is_one_event_of_plain_values(tab):
    demo, fns, layout = tab
    submit = fns["rate_submit"]
    assert not submit.preprocess and not submit.postprocess
    # no layout blocks among its outputs, and nothing chained after it
    assert all(isinstance(b, gr.components.Component) for b in submit.outputs)
    # (the only thing chained runs in the browser: it brings the next prompt into view, no server call)
    assert not any(getattr(f, "trigger_after", None) == submit._id and f.fn is not None for f in demo.fns.values())
    # visibility moves only through the private layout event, when the number of responses changes
    assert len(layout) == 1 and layout[0].api_visibility == "private"


def test_submit_returns_plain_values_and_leaks_nothing(store, tab):
    _, fns, _ = tab
    sid, _ = seed(store, "plain")
    code = code_for(store, sid, "Ann")
    sess = start(fns, code)
    out = submit(fns, code, sess, *radios_and_notes([(5, 4, 3), (2, 2, 2), (1, 3, 5)]))
    assert len(out) == len(fns["rate_submit"].outputs)
    sess, shown = out[0], out[1]
    # the session holds the study, the item on screen and the page's language: not the code, not the rater
    assert shown == 3 and set(sess) == {"study_id", "item", "index", "shown", "lang"}
    assert sess["lang"] == "en"
    assert code not in json.dumps(out)
    values = out[2:]
    assert not any(isinstance(v, dict) for v in values), "a gr.update in Submit's outputs rebuilds a component"
    assert "Item 2 of 2" in values[0] and values[-3].startswith("Saved") and values[-2] == [] and values[-1] == 2
    text = json.dumps(values)
    for secret in (*METHODS, "111.5", "22.5", "33.5", '"seed"', "settings"):
        assert secret not in text
    # the last item: everything cleared, and the layout count drops to 0 (the page hides the slots)
    out = submit(fns, code, out[0], *radios_and_notes([(1, 1, 1)] * 3))
    assert out[1] == 0 and "rated all 2 items" in out[2] and out[3] == ""
    assert store.count_ratings() == 6


@pytest.mark.parametrize("bad", [99, 0, 6, -1, 2.5, "4", "1; DROP TABLE ratings", True, [3], {"v": 3}])
def test_submit_checks_scores_itself(store, tab, bad):
    """Without Gradio's preprocessing the handler refuses what the radio would have refused."""
    _, fns, _ = tab
    sid, _ = seed(store, "bad")
    other, _ = seed(store, "other")
    code, elsewhere = code_for(store, sid, "Bo"), code_for(store, other, "Bo")
    sess = start(fns, code)
    with pytest.raises(gr.Error):
        submit(fns, code, sess, *radios_and_notes([(bad, 3, 3), (3, 3, 3), (3, 3, 3)]))
    with pytest.raises(gr.Error):  # a comment must be text
        submit(fns, code, sess, *radios_and_notes([(3, 3, 3)] * 3, [{"x": 1}] + [None] * 7))
    with pytest.raises(gr.Error):  # a score in a slot that is not shown
        submit(fns, code, sess, *radios_and_notes([(3, 3, 3)] * 4))
    with pytest.raises(gr.Error, match="not valid"):  # a name is not a code
        submit(fns, "Bo", sess, *radios_and_notes([(3, 3, 3)] * 3))
    with pytest.raises(gr.Error, match="not valid"):  # nor is anything that is not text
        submit(fns, bad, sess, *radios_and_notes([(3, 3, 3)] * 3))
    with pytest.raises(gr.Error, match="code changed"):  # the same rater's code for another study
        submit(fns, elsewhere, sess, *radios_and_notes([(3, 3, 3)] * 3))
    assert store.count_ratings() == 0
    submit(fns, code, sess, *radios_and_notes([(4.0, 3, 3), (3, 3, 3), (3, 3, 3)]))  # as the radio allows
    assert store.count_ratings() == 3


def test_remembered_orders_and_texts_never_outlive_their_study(store):
    """Rows deleted with their study, then ids handed out again: the new study's texts and orders
    are shown, never the remembered ones of the old study."""
    sid, _ = seed(store, "old", n_items=1)
    view, _ = blind.open_item(store, "Cy", sid)
    blind.submit(store, "Cy", view.item, {r.label: dict.fromkeys(blind.DIMENSIONS, 4) for r in view.responses})
    old_ids = sorted(o.id for o in store.outputs_for_item(store.items(sid)[0].id))
    with store.write() as conn:  # what deleting a study does, child rows first
        conn.execute(delete(ratings))
        conn.execute(delete(assignments))
        conn.execute(delete(outputs))
        conn.execute(delete(items))
        conn.execute(delete(study_raters))
        conn.execute(delete(studies))
        # a database made before AUTOINCREMENT (schema.py) hands a study's id out again: as there
        conn.execute(text("DELETE FROM sqlite_sequence WHERE name = 'studies'"))
    new_sid, new_items = seed(store, "new", n_items=1)
    new_ids = sorted(o.id for o in store.outputs_for_item(new_items[0]))
    assert (new_sid, new_ids) == (sid, old_ids), "SQLite hands the same ids out again"
    view, _ = blind.open_item(store, "Cy", new_sid)
    assert view is not None and all(r.text.startswith("new text") for r in view.responses)
    assert not view.complete and view.rated_items == 0
    blind.submit(store, "Cy", view.item, {r.label: dict.fromkeys(blind.DIMENSIONS, 2) for r in view.responses})
    frame = store.ratings_frame(new_sid)
    assert len(frame) == 3 and set(frame.text.str.slice(0, 8)) == {"new text"}
    assert sorted(frame.position) == [0, 1, 2]


def test_a_missing_score_keeps_everything_and_marks_only_the_empty_rows(store, tab):
    _, fns, _ = tab
    sid, _ = seed(store, "missing", n_items=1)
    code = code_for(store, sid, "Mo")
    sess = start(fns, code)
    given = [(5, 4, 3), (2, None, 2), (1, 3, None)]
    out = submit(fns, code, sess, *radios_and_notes(given, ["keep me", None, None] + [None] * 5))
    assert store.count_ratings() == 0  # nothing half-saved
    status, marked = out[-3], out[-2]
    assert "Not saved yet" in status and "7 of 9 scored" in status and "B · informativeness" in status
    assert sorted(map(tuple, marked)) == [(1, 1), (2, 2)]
    a, b = RateView.text_index(0), RateView.text_index(1)
    assert out[a + 1 : a + 4] == [5, 4, 3] and out[b - 1] == "keep me" and out[b + 1 : b + 4] == [2, None, 2]
    marks = [f for f in tab[0].fns.values() if f.name == "on_missing"][0].fn(marked, out[0])
    rows = [marks[k * ROWS : k * ROWS + 3] for k in range(3)]  # the default rubric's three rows per response
    assert [["rate-missing" in u.get("elem_classes") for u in row] for row in rows] == [
        [False, False, False],
        [False, True, False],
        [False, False, True],
    ]
    out = submit(fns, code, out[0], *radios_and_notes([(5, 4, 3), (2, 2, 2), (1, 3, 4)]))
    assert store.count_ratings() == 3 and out[-2] == [] and out[-1] is None and "rated all 1 items" in out[2]


def test_a_submit_is_one_transaction_with_its_next_item(store, tab, monkeypatch):
    """The save and the next item (its order recorded on first view) are one transaction, besides
    the invite code's read; if the next item cannot be worked out, the scores are not kept either
    and the rater is told so, rather than being shown an error after a save."""
    _, fns, _ = tab
    sid, _ = seed(store, "one", n_items=3)
    code = code_for(store, sid, "Di")
    sess = start(fns, code)
    begun: list[object] = []

    def count(conn: object) -> None:
        begun.append(conn)

    event.listen(store.engine, "begin", count)
    out = submit(fns, code, sess, *radios_and_notes([(5, 4, 3), (2, 2, 2), (1, 3, 5)]))
    event.remove(store.engine, "begin", count)
    assert len(begun) == 2 and "Item 2 of 3" in out[2]
    assert store.count_ratings() == 3

    def unreachable(*args, **kwargs):
        raise OperationalError("SELECT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(store, "skipped_items", unreachable)
    with pytest.raises(gr.Error, match="NOT saved"):
        submit(fns, code, out[0], *radios_and_notes([(1, 1, 1)] * 3))
    assert store.count_ratings() == 3
    monkeypatch.undo()
    out = submit(fns, code, out[0], *radios_and_notes([(1, 1, 1)] * 3))
    assert "Item 3 of 3" in out[2] and store.count_ratings() == 6
