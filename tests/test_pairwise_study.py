"""The pairwise study kind: balanced secret pairs, votes in the store (both databases), blindness."""

from __future__ import annotations

import dataclasses
from collections import Counter
from types import SimpleNamespace

import pytest

from arena.access import invites
from arena.rating import blind, pair_rating, pair_schedule
from arena.rating.study_spec import StudySpec
from arena.store import Store
from common.errors import UserError

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


def outputs_of(n: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(id=100 + k, method=f"M{k}", sample_index=0) for k in range(n)]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_each_block_meets_every_pair_twice_and_every_system_left_equally(n):
    outs = outputs_of(n)
    block = pair_schedule.pair_block_size(n)
    overall_pairs: Counter = Counter()
    overall_left: Counter = Counter()
    for seed in range(20):  # 20 raters, two blocks each
        for b in range(2):
            pairs = [pair_schedule.pair_order(outs, seed, b * block + k) for k in range(block)]
            unordered = Counter(frozenset(p) for p in pairs)
            left = Counter(p[0] for p in pairs)
            assert len(unordered) == n * (n - 1) // 2 and set(unordered.values()) == {2}
            assert set(left.values()) == {n - 1} and len(left) == n
            overall_pairs.update(unordered)
            overall_left.update(left)
    assert len(set(overall_pairs.values())) == 1 and len(set(overall_left.values())) == 1


def test_pair_orders_are_secret_per_rater_and_per_block():
    outs = outputs_of(3)
    first = Counter(tuple(pair_schedule.pair_order(outs, seed, 0)) for seed in range(600))
    assert len(first) == 6 and min(first.values()) > 60  # every ordered pair starts someone's list
    # One rater's first block says nothing about their second: its order is drawn again.
    joint = Counter(
        (tuple(pair_schedule.pair_order(outs, seed, 0)), tuple(pair_schedule.pair_order(outs, seed, 6)))
        for seed in range(600)
    )
    assert len(joint) == 36


def make_pairwise(store: Store, n_items: int = 6, methods=METHODS, state: str = "open") -> tuple[int, list[int]]:
    sid = store.create_study(
        "pairs", methods=methods, samples_per_method=1, max_new_tokens=8, design="pairwise", state=state
    )
    iids = store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(methods):
            store.add_output(
                iid,
                m,
                0,
                text=f"text {iid}-{k} " + "w " * (k + 1),
                settings={"method": m},
                seed=9,
                model="m",
                new_tokens=k + 2,
            )
    return sid, iids


def enrol(store: Store, sid: int, name: str) -> invites.Enrolment:
    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def test_votes_are_stored_replaced_and_skipped_on_both_databases(store):
    sid, iids = make_pairwise(store)
    ana = enrol(store, sid, "ana")
    view, _ = pair_rating.open_for(store, ana)
    assert view is not None and view.index == 1 and view.winner is None
    view2, _ = pair_rating.vote_then_next(store, ana, view.item, "a", ["clearer", "More concise"], "good")
    assert view2 is not None and view2.index == 2 and view2.rated_items == 1
    again, _ = pair_rating.open_for(store, ana, 1)
    assert again is not None and again.winner == "a" and again.reasons == ["clearer", "concise"]
    assert again.note == "good" and (again.text_a, again.text_b) == (view.text_a, view.text_b)  # order kept
    pair_rating.vote_then_next(store, ana, view.item, "tie")  # voting again replaces the vote
    votes = store.votes(sid)
    assert [v.winner for v in votes] == ["tie"] and votes[0].reasons == ()
    nxt, _ = pair_rating.skip_then_next(store, ana, view2.item, "unclear")
    assert nxt is not None and nxt.index == 3 and nxt.rated_items == 2
    with pytest.raises(UserError, match="voted on this item already"):
        pair_rating.skip_then_next(store, ana, view.item, "unclear")
    pair_rating.vote(store, ana, view2.item, "bothbad")  # a vote ends the skip, in one transaction
    assert store.skipped_items(sid, ana.rater_id) == {}
    assert pair_rating.flag(store, ana, view2.item, "B", "broken")
    [flag] = store.flags(sid)
    assert flag.position == 1 and flag.output_id == store.assignment(ana.rater_id, flag.item_id)[1]
    with pytest.raises(UserError):
        pair_rating.vote(store, ana, view2.item, "left")
    with pytest.raises(UserError):
        pair_rating.vote(store, ana, view2.item, "a", ["bribe"])


def test_the_database_refuses_a_bad_vote(store):
    sid, iids = make_pairwise(store, n_items=1)
    rid = store.rater_id("ana")
    outs = store.outputs_for_item(iids[0])
    with pytest.raises(UserError):
        store.save_vote(rid, iids[0], outs[0].id, outs[0].id, "a")
    other_sid, other = make_pairwise(store, n_items=1)
    with pytest.raises(UserError, match="belong to its item"):
        store.save_vote(rid, iids[0], outs[0].id, store.outputs_for_item(other[0])[0].id, "a")


def test_each_rater_sees_balanced_pairs_and_nothing_names_a_method(store):
    sid, iids = make_pairwise(store, n_items=6)
    method_of = {o.id: o.method for iid in iids for o in store.outputs_for_item(iid)}
    text_of = {o.text: o.method for iid in iids for o in store.outputs_for_item(iid)}
    for name in ("ana", "ben"):
        who = enrol(store, sid, name)
        lefts, pairs = Counter(), Counter()
        for k in range(1, 7):
            view, _ = pair_rating.open_for(store, who, k)
            assert view is not None
            shown = repr(dataclasses.asdict(view)) + view.progress
            assert not any(m in shown for m in METHODS) and "seed" not in shown
            lefts[text_of[view.text_a]] += 1
            pairs[frozenset((text_of[view.text_a], text_of[view.text_b]))] += 1
            stored = store.assignment(who.rater_id, store.item_by_public_id(view.item).id)
            assert sorted(stored) == [0, 1] and method_of[stored[0]] == text_of[view.text_a]
        assert set(lefts.values()) == {2} and set(pairs.values()) == {2}
    summary, per_rater = blind.position_balance(store, sid)  # the Organizer's check, while open
    assert list(summary["result"]) == ["pass"] and list(per_rater["complete blocks"]) == [1, 1]
    assert not any(m in summary.to_string() + per_rater.to_string() for m in METHODS)
    from arena import studies

    studies.close_study(store, sid)
    sides, _ = blind.position_balance(store, sid)
    assert list(sides["A"]) == [4, 4, 4] and list(sides["B"]) == [4, 4, 4]


def test_the_other_kinds_handlers_refuse(store):
    sid, iids = make_pairwise(store, n_items=2)
    ana = enrol(store, sid, "ana")
    view, _ = pair_rating.open_for(store, ana)
    # Attack: the 1-5 API on a pairwise item would record a three-response order and show all three.
    with pytest.raises(UserError, match="pairs"):
        blind.open_for(store, sid, lambda: ana.rater_id)
    with pytest.raises(UserError, match="pairs"):
        blind.submit_slots_for(store, ana, view.item, [[5, 5, 5], [1, 1, 1]], ["", ""])
    assert len(store.assignment(ana.rater_id, iids[0])) == 2
    scores_sid = store.create_study("scores", methods=METHODS, samples_per_method=1, max_new_tokens=8)
    ben = enrol(store, scores_sid, "ben")
    with pytest.raises(UserError, match="1-5"):
        pair_rating.open_for(store, ben)
    # A code opens its own study only: ben's code cannot vote on ana's item.
    with pytest.raises(UserError):
        pair_rating.vote(store, ben, view.item, "a")


def test_closed_study_takes_no_votes_and_reveals_the_pairs(store):
    from arena import studies

    sid, iids = make_pairwise(store, n_items=2)
    ana = enrol(store, sid, "ana")
    view, _ = pair_rating.open_for(store, ana)
    with pytest.raises(UserError, match="closed first|close it first"):
        blind.reveal(store, sid)
    studies.close_study(store, sid)
    with pytest.raises(UserError, match="closed"):
        pair_rating.vote(store, ana, view.item, "a")
    mapping = blind.reveal(store, sid)
    assert list(mapping["label"]) == ["A", "B"]


def test_create_study_checks_the_pairwise_design(tmp_path):
    from arena.studies import PromptSpec, create_study

    store = Store(f"sqlite:///{tmp_path / 'c.db'}")
    prompts = [PromptSpec(prompt="hello")]
    sid = create_study(store, StudySpec("p", prompts, methods=["BS-4", "TS-Temp"], design="pairwise"))
    assert store.get_study(sid).design == "pairwise"
    for kwargs, match in (
        (dict(methods=["BS-4"]), "at least two"),
        (dict(methods=["TS-Temp", "TS-Tilted"], samples_per_method=2), "one sample"),
        (dict(methods=["BS-4", "TS-Temp"], guess_methods="TS-Tilted"), "not among"),
        (dict(methods=["BS-4", "TS-Temp"], design="ranked"), "scores or pairwise"),
    ):
        with pytest.raises(UserError, match=match):
            create_study(store, StudySpec("q", prompts, **{"design": "pairwise", **kwargs}))


def test_an_existing_database_gets_the_design_column_and_the_votes_table(store):
    sid = store.create_study("old", methods=METHODS)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE votes")
        conn.exec_driver_sql("ALTER TABLE studies DROP COLUMN design")
    again = Store(engine=store.engine)
    assert "add column studies.design" in again.changes and "create table votes" in again.changes
    assert again.get_study(sid).design == "scores"


def vote_everything(store: Store, sid: int, raters=("ana", "ben"), winners=("a", "b", "tie", "bothbad")) -> None:
    for r, name in enumerate(raters):
        who = enrol(store, sid, name)
        view, _ = pair_rating.open_for(store, who)
        k = 0
        while view is not None:
            view, _ = pair_rating.vote_then_next(store, who, view.item, winners[(k + r) % len(winners)], ["clearer"])
            k += 1


def test_votes_csv_is_what_evaluation_pairwise_reads_after_close_and_the_export_round_trips(store, tmp_path):
    import io

    from arena import studies
    from arena.files import export, pair_export
    from evaluation import pairwise as pw

    sid, iids = make_pairwise(store, n_items=6)
    vote_everything(store, sid)
    with pytest.raises(UserError, match="once it is closed"):
        pair_export.vote_rows(store, sid)
    blind_text, _ = export.export_text(store, "csv", sid, blind=True)  # the organizer's export while open
    import csv

    vote_lines = [r for r in csv.DictReader(io.StringIO(blind_text)) if r["row_kind"] == "vote"]
    assert len(vote_lines) == 24  # two rows per vote, neither says whose response it was
    assert all(r["method"] == r["output_id"] == r["settings"] == r["new_tokens"] == "" for r in vote_lines)
    studies.close_study(store, sid)
    out = io.StringIO()
    assert pair_export.write_votes_csv(pair_export.vote_rows(store, sid), out) == 12
    path = tmp_path / "votes.csv"
    path.write_text(out.getvalue())
    votes = pw.read_votes(path)
    assert list(votes.columns[:8]) == list(pair_export.VOTE_COLUMNS) and len(votes) == 12
    result = pw.rate(votes, n_resamples=50)
    assert len(result.systems) == 3 and "rating_length_controlled" in result.systems
    # The whole export carries the votes (two rows each) and imports into an empty database unchanged.
    whole = tmp_path / "all.jsonl"
    export.export_to_path(store, whole, study_id=sid)
    other = Store(f"sqlite:///{tmp_path / 'other.db'}")
    counts = export.import_file(other, whole)
    assert counts["votes"] == 12 and counts["studies"] == 1
    [copy] = other.list_studies()
    assert copy.design == "pairwise" and copy.state == "closed"
    again = pair_export.vote_rows(other, copy.id)
    strip = [
        {k: v for k, v in r.items() if k not in ("study_id", "item_id")} for r in pair_export.vote_rows(store, sid)
    ]
    assert [{k: v for k, v in r.items() if k not in ("study_id", "item_id")} for r in again] == strip
    assert [v.reasons for v in other.votes(copy.id)] == [("clearer",)] * 12
    assert export.import_file(other, whole)["votes"] == 12  # importing again changes nothing
    assert len(other.votes(copy.id)) == 12


def test_results_and_present_show_the_leaderboard_once_published(tmp_path):
    from arena import studies
    from evaluation.pairwise_view import pairwise_view
    from ui import present

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    sid, _ = make_pairwise(store, n_items=6)
    vote_everything(store, sid, winners=("a", "a", "b", "tie"))
    assert present.render(store, sid)[0] == 404  # open: the same page as for no study
    studies.close_study(store, sid)
    with pytest.raises(UserError, match="no published study"):
        pairwise_view(store, sid)
    assert len(pairwise_view(store, sid, public=False, n_resamples=50)["table"]) == 3  # the organizer, after close
    studies.publish_study(store, sid)
    view = pairwise_view(store, sid, n_resamples=50)
    table = view["table"]
    assert set(table["method"]) == set(METHODS) and table["votes"].sum() == 24
    assert table["provisional"].str.startswith("yes").all()  # 8 votes each: under 30
    assert "at equal length [95% CI]" in table and view["takeaway"] == view["lines"][0]
    status, page = present.render(store, sid)
    assert status == 200 and "Leaderboard" in page and "A-vs-B votes" in page
    assert all(m in page for m in METHODS) and "provisional" in page
    zh = present.render(store, sid, "zh")[1]  # issue 24: the page in Chinese, the same leaderboard
    assert "<h2>排行榜</h2>" in zh and "次 A/B 投票" in zh and "暂定" in zh and "Leaderboard" not in zh
    assert all(m in zh for m in METHODS) and zh.count("<tr>") == page.count("<tr>")


def test_the_organizer_sees_votes_as_progress(tmp_path):
    from ui.organizer import dashboard as organizer_dashboard

    store = Store(f"sqlite:///{tmp_path / 'o.db'}")
    sid, _ = make_pairwise(store, n_items=6)
    vote_everything(store, sid, raters=("ana",))
    enrol(store, sid, "ben")
    table = organizer_dashboard.rater_table(store, sid).set_index("rater")
    assert table.loc["ana", "items done"] == "6 of 6" and table.loc["ben", "items done"] == "0 of 6"
