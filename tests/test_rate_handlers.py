"""The Rate tab's handlers without a browser or a live app: module-level functions of plain values
(ui/rate/handlers.py, ui/rate/pairwise.py) called with a store and a stand-in request, the view they
return (ui/rate/view.py, the one wire format), and ui/handler.py, which turns a UserError into the one
inline line. The outputs come from the dummy engine (ARENA_ENGINE=dummy) where a run is needed."""

from __future__ import annotations

import inspect
import math
from types import SimpleNamespace

import gradio as gr
import pytest

from arena.access import invites
from arena.rating import guessing
from arena.runs import runner
from arena.runs.requests import RunRequest
from arena.store import Store
from common.errors import UserError
from tests.support.seeding import invite, seed_study
from ui import AppContext, rate
from ui.handler import handler
from ui.rate import handlers as h
from ui.rate import pairwise
from ui.rate.view import PER_SLOT, SLOTS, RateView
from ui.rate.view import form as rate_form

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


def request(lang: str = "en", host: str = "203.0.113.7", cookies: dict | None = None) -> SimpleNamespace:
    """What a handler reads of a gr.Request: the language, the client, the cookies."""
    return SimpleNamespace(
        headers={"accept-language": "zh-CN,zh;q=0.9" if lang == "zh" else "en-US"},
        client=SimpleNamespace(host=host),
        cookies=cookies or {},
    )


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def study(store: Store, n_items: int = 2, design: str = "scores", guess: list[str] | None = None) -> int:
    sid = store.create_study(
        f"handlers {design}", methods=METHODS, samples_per_method=1, max_new_tokens=8, design=design,
        guess_methods=guess or [],
    )  # fmt: skip
    iids = store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            store.add_output(iid, m, 0, text=f"text {k} of {iid}", settings={}, seed=1, model="m", new_tokens=4)
    return sid


def code(store: Store, sid: int, name: str = "ann") -> str:
    [made] = invites.invite(store, sid, [name])
    return made.code


def form(scores: list[int | None], notes: list[str | None] | None = None) -> list:
    """Submit's values: the default rubric's 3 answers per slot (A..H), then a comment per slot."""
    return rate_form([scores[k : k + 3] for k in range(0, len(scores), 3)], list(notes or []))


def test_start_opens_the_first_item_and_names_the_rater(store):
    sid = study(store)
    opened = h.on_start(store, code(store, sid), {}, request())
    assert opened.who == "Rating as **ann** in **handlers scores**."
    view = opened.rate
    assert view.shown == 3 and view.prompt.startswith("prompt ") and view.progress.startswith("**Item 1 of 2")
    assert view.session["study_id"] == sid and view.session["item"] and view.session["lang"] == "en"
    assert {s.text.count("text ") for s in view.slots[:3]} == {1} and not any(s.text for s in view.slots[3:])
    with pytest.raises(UserError, match="not valid"):
        h.on_start(store, "not-a-code", {}, request())


def test_submit_saves_and_moves_on_and_a_missing_score_keeps_what_was_entered(store):
    sid = study(store)
    ann = code(store, sid)
    sess = h.on_start(store, ann, {}, request()).rate.session
    partial = h.on_submit(store, request(), ann, sess, *form([5, 4, 3, 2, None, 1, 5, 5, 5], ["good"]))
    assert store.count_ratings() == 0  # nothing saved
    assert partial.status.startswith("**Not saved yet**: 8 of 9 scored. Missing: B · informativeness")
    assert (
        partial.missing == [[1, 1]] and partial.slots[0].scores[:3] == (5, 4, 3) and partial.slots[0].comment == "good"
    )
    saved = h.on_submit(store, request(), ann, sess, *form([5, 4, 3, 2, 3, 1, 5, 5, 5]))
    assert store.count_ratings() == 3 and saved.status == "Saved. Here is the next item."
    assert saved.progress.startswith("**Item 2 of 2") and saved.session["item"] != sess["item"]


def test_refusals_name_what_to_do_in_the_raters_language(store):
    sid = study(store, n_items=1)
    ann = code(store, sid)
    sess = h.on_start(store, ann, {}, request()).rate.session
    with pytest.raises(UserError, match="no earlier item"):
        h.on_move(store, -1, ann, sess, request())
    with pytest.raises(UserError, match="choose a reason to skip"):
        h.on_skip(store, ann, sess, None, "", request())
    with pytest.raises(UserError, match="enter your invite code"):
        h.on_submit(store, request(), ann, {}, *form([]))
    # ui/handler.py: the refusal as one inline line, escaped, in the browser's language
    move = handler(h.on_move, store, -1)
    with pytest.raises(gr.Error) as zh:
        move(ann, sess, request("zh"))
    assert zh.value.message == "没有更早的题目" and zh.value.print_exception is False


def test_skip_and_flag(store):
    sid = study(store)
    ann = code(store, sid)
    sess = h.on_start(store, ann, {}, request()).rate.session
    status, note = h.on_flag(store, ann, sess, "Response B", "broken", "cut off", request("zh"))
    assert status.startswith("已报告回答 B") and note == ""
    again, _ = h.on_flag(store, ann, sess, "Response B", "broken", "cut off", request())
    assert again == "You had already flagged response B for that reason."
    *values, reason, note = h.on_skip(store, ann, sess, "language", "", request())
    view = RateView.parse(values)
    assert (reason, note) == (None, "") and view.status == "Skipped. Here is the next item."
    assert view.session["item"] != sess["item"] and store.skipped_items(sid, store.find_rater("ann"))


def test_the_blind_question_gets_the_same_reply_whatever_the_answer(store):
    sid = study(store, n_items=2, guess=["BS-4"])
    replies = []
    for name, pick in (("ann", "A"), ("bo", "B")):
        rater = code(store, sid, name)
        sess = h.on_start(store, rater, {}, request()).rate.session
        asked = h.on_submit(store, request(), rater, sess, *form([4] * 9))
        assert asked.guess_ask == {"methods": ["BS-4"], "shown": 3}
        assert asked.status == "Saved. One more question about this item, in place of the responses."
        after = h.on_guess(store, request(), rater, asked.session, pick, *[None] * (SLOTS - 1))
        replies.append((after.status, after.guess_ask, after.progress.replace(name, "")))
    assert replies[0] == replies[1] and replies[0][0] == "Thank you. Here is the next item."
    assert {g.guessed_position for g in store.guesses(sid)} == {0, 1}


def test_the_wire_format_is_four_values_then_a_text_the_rows_and_a_comment_per_slot(store):
    sid = study(store)
    view = h.on_start(store, code(store, sid), {}, request()).rate
    values = view.values()
    assert PER_SLOT == 10 and len(values) == 4 + PER_SLOT * SLOTS + 4  # guess_ask, status, missing, item_for
    assert values[-1] == 1  # the position a Submit names (ui/rate/once.py)
    for k in range(SLOTS):
        assert values[RateView.text_index(k)] == view.slots[k].text and RateView.text_index(k) == 4 + PER_SLOT * k
    assert RateView.parse(values) == view
    # gradio_client returns no gr.State (session, layout, guess_ask, missing)
    client = [v for k, v in enumerate(values) if k not in (0, 1, len(values) - 4, len(values) - 2)]
    seen = RateView.parse(client, states=False)
    assert seen.shown == 3 and seen.prompt == view.prompt and seen.slots == view.slots
    assert client[RateView.text_index(0, states=False)] == view.slots[0].text
    # Start's reply through gradio_client: the laid-out form without its states (session, layout, guess_ask)
    # and its slot boxes (layout blocks), then the pairwise panel's values, which are not read
    _, _, progress, prompt, *slots, _, status, _ = view.laid_out()
    slots = [v for k, v in enumerate(slots) if k % (PER_SLOT + 1)]  # each slot's box first
    seen = RateView.parse([progress, prompt, *slots, status, {"visible": False}, "guide", []], states=False)
    assert (seen.shown, seen.prompt, seen.missing) == (3, view.prompt, [])
    laid = view.laid_out()
    assert len(laid) == 4 + (PER_SLOT + 1) * SLOTS + 3 and laid[4]["visible"] is True
    assert laid[4 + (PER_SLOT + 1) * 3]["visible"] is False


def test_a_pairwise_study_opens_the_panel_and_votes(store):
    sid = study(store, design="pairwise")
    ann = code(store, sid)
    opened = h.on_start(store, ann, {}, request())
    assert opened.form is False and opened.rate.shown == 0
    panel, guide, *pair_values = opened.pair
    assert panel.visible is True and "vote once" in guide
    sess = pair_values[0]
    voted = pairwise.on_vote(store, "a", ann, sess, ["concise"], "", request())
    assert voted.status == "Saved. Here is the next item." and len(store.votes(sid)) == 1
    with pytest.raises(UserError, match="what to flag"):
        pairwise.on_flag(store, ann, voted.session, "Response C", "broken", "", request())


def test_compares_rate_these_blind_hands_a_quick_study_over(store, monkeypatch):
    """The dummy engine runs Compare's methods; "Send these to the Rate tab" makes a quick study of them and the
    Rate tab opens it from the hand-off, its letters in a secret order."""
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    lm = SimpleNamespace(name="dummy-model", context_length=2048)
    results = runner.run_methods(lm, RunRequest(prompt="Describe a river", methods=METHODS, max_new_tokens=8))
    handoff, run, tab = h.on_rate(store, lambda: lm, request(), "Describe a river", False, results)
    assert tab.selected == "rating" and run["quick_code"] == handoff["code"]
    again, *_ = h.on_rate(store, lambda: lm, request(), "edited box", False, run)
    assert again["code"] == handoff["code"]  # pressing again reopens the same quick study
    code_value, who, sess, shown, progress, prompt, *rest = h.on_handoff(store, handoff, {}, request())
    assert code_value == handoff["code"] and shown == 3 and prompt["value"] == "Describe a river"
    shown_html = " ".join(
        str(v["value"]) for v in rest[: (PER_SLOT + 1) * SLOTS] if isinstance(v, dict) and "value" in v
    )
    assert all(r.text in shown_html for r in results) and not any(m in shown_html for m in METHODS)


def test_handler_keeps_the_request_and_streams_generators():
    def greet(prefix: str, name: str, request: gr.Request) -> str:
        if not name:
            raise UserError("type a <name>")
        return f"{prefix} {name} from {request.client.host}"

    def count(n: int):
        yield from range(n)

    wired = handler(greet, "hi")
    assert list(inspect.signature(wired).parameters) == ["name", "request"]
    assert inspect.signature(wired).parameters["request"].annotation is gr.Request
    assert wired("ann", request()) == "hi ann from 203.0.113.7"
    with pytest.raises(gr.Error) as err:
        wired("", request())
    assert err.value.message == "type a &lt;name&gt;"
    assert inspect.isgeneratorfunction(handler(count)) and list(handler(count, wire=str)(3)) == ["0", "1", "2"]
    assert guessing.DONT_KNOW  # the module's names stay importable for the tab


def test_skip_flag_and_cant_judge_are_stored_and_nothing_is_lost(store):
    """Moved down from tests/e2e/test_rating_feedback_e2e.py (it checked what the handlers store): a
    dimension marked can't-judge lets the item be submitted and is stored as no score; a flag changes
    nothing on screen (its event's only outputs are the status line and the note); a skip moves on and
    counts as done."""
    texts = [{m: f"feedback item {k} answer {m[-1]} with **bold** words" for m in METHODS} for k in range(3)]
    sid, item_ids = seed_study(store, "Feedback study", [f"feedback prompt {k}" for k in range(3)], texts)
    code_ = invite(store, sid, "feedback-rater")
    first = h.on_start(store, code_, {}, request()).rate
    assert first.progress.startswith("**Item 1 of 3") and "<strong>bold</strong>" in first.slots[0].text
    assert 'aria-label="Response A"' in first.slots[0].text  # the region a screen reader names
    # Item 1: A's naturalness can't be judged, everything else a 4; B is flagged before submitting.
    scores = [4, 4, "Can't judge", *[4] * 6]
    status, note = h.on_flag(store, code_, first.session, "Response B", "broken", "repeats itself", request())
    assert status.startswith("Flagged response B") and note == ""
    with gr.Blocks() as demo:
        rate.build(AppContext(model=lambda: None, extras={"store": store}))
    [flag] = [f for f in demo.fns.values() if f.api_name == "rate_flag"]
    assert [getattr(o, "elem_id", None) for o in flag.outputs][0] == "rate-status" and len(flag.outputs) == 2
    second = h.on_submit(store, request(), code_, first.session, *form(scores))
    assert second.progress.startswith("**Item 2 of 3") and second.status.startswith("Saved")
    # Item 2: skipped with a reason; a score entered before skipping is not saved.
    *values, _, _ = h.on_skip(store, code_, second.session, "language", "", request())
    third = RateView.parse(values)
    assert (
        "you have rated 1 of 3 (1 skipped)" in third.progress
    )  # a skipped item is not rated and third.progress.startswith("**Item 3 of 3")
    # Item 3: rated in full.
    done = h.on_submit(store, request(), code_, third.session, *form([3] * 9))
    assert (
        done.progress.startswith("You have gone through all 3 items of this study: 2 rated, 1 skipped")
        and done.shown == 0
    )

    frame = store.ratings_frame(sid)
    assert len(frame) == 6 and set(frame["item_id"]) == {item_ids[0], item_ids[2]}
    one = frame[frame["item_id"] == item_ids[0]].sort_values("position")
    assert math.isnan(one["naturalness"].iloc[0]) and one["naturalness"].iloc[1:].tolist() == [4, 4]
    assert one["coherence"].tolist() == [4, 4, 4] and one["informativeness"].tolist() == [4, 4, 4]
    dims = ["coherence", "informativeness", "naturalness"]
    assert frame[frame["item_id"] == item_ids[2]][dims].values.tolist() == [[3, 3, 3]] * 3
    [skip] = store.skips(sid)
    assert skip.item_id == item_ids[1] and skip.reason == "language"
    [flagged] = store.flags(sid)
    assert flagged.item_id == item_ids[0] and flagged.position == 1 and flagged.reason == "broken"
    assert flagged.note == "repeats itself" and flagged.output_id == one["output_id"].iloc[1]
