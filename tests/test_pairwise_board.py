"""The leaderboard across studies and the preference-pair export: which studies may enter (attacks:
open and unpublished studies never do), what a system is, what each row rests on; both databases."""

from __future__ import annotations

import itertools
import json
import random
from types import SimpleNamespace

import pandas as pd
import pytest

from arena import studies
from arena.files import export, pair_export
from arena.files.preferences import preference_pairs
from arena.store.rating_store import CANT_JUDGE_KEY
from common.errors import UserError
from evaluation import pairwise as pw
from evaluation import pairwise_board as pb
from evaluation.pairwise_view import pairwise_view

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]
RATERS = ["ana.secret", "ben.secret", "cy.secret"]  # names are credentials: they must not show


def make_study(store, design: str, n_items: int = 10, model: str = "m", settings=None) -> tuple[int, list[int]]:
    sid = store.create_study(
        f"{design} study",
        methods=METHODS,
        settings=settings or {},
        samples_per_method=1,
        max_new_tokens=8,
        design=design,
        state="open",
    )
    iids = store.add_items(sid, [{"prompt": f"prompt {sid}-{k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            text = f"answer {iid}-{k} " + "w " * (1 + (iid + k) % 4)
            store.add_output(
                iid, m, 0, text=text, settings={"method": m}, seed=9, model=model, new_tokens=2 + (iid + k) % 4
            )
    return sid, iids


def vote_all(store, iids, raters=RATERS, seed: int = 0) -> int:
    """Every rater votes on every item (BS-4 usually wins); returns the number of votes."""
    rng = random.Random(seed)
    n = 0
    for name in raters:
        rid = store.rater_id(name)
        for iid in iids:
            a, b = rng.sample(store.outputs_for_item(iid), 2)
            better = METHODS.index(a.method) < METHODS.index(b.method)
            winner = ("a" if better else "b") if rng.random() < 0.7 else rng.choice(["tie", "bothbad", "a", "b"])
            store.save_vote(rid, iid, a.id, b.id, winner)
            n += 1
    return n


def score_all(store, iids, raters=RATERS, seed: int = 1) -> None:
    rng = random.Random(seed)
    for name in raters:
        rid = store.rater_id(name)
        for iid in iids:
            rows = []
            for o in store.outputs_for_item(iid):
                v = max(1, min(5, 4 - METHODS.index(o.method) + rng.choice([-1, 0, 1])))
                judged = rng.random() < 0.8  # some "can't judge" answers on naturalness
                rows.append(
                    dict(output_id=o.id, coherence=v, informativeness=v, naturalness=v if judged else None)
                    | ({} if judged else {CANT_JUDGE_KEY: ["naturalness"]})
                )
            store.save_ratings(rid, rows)


def publish(store, sid: int) -> None:
    studies.close_study(store, sid)
    studies.publish_study(store, sid)


def test_one_board_pools_a_pairwise_and_a_1_to_5_study_and_says_what_it_rests_on(store):
    sp, ip = make_study(store, "pairwise")
    ss, is_ = make_study(store, "scores")
    n_votes = vote_all(store, ip)
    score_all(store, is_)
    publish(store, sp)
    publish(store, ss)
    [group] = pb.board_groups(store)
    assert group.models == ("m",) and set(group.study_ids) == {sp, ss}
    view = pb.cross_study_view(store, group.key, n_resamples=60)
    table = view["table"]
    assert list(table.columns) == pb.BOARD_COLUMNS and set(table["system"]) == set(METHODS)
    # Comparisons counted independently: every vote, and 3 pairs per (item, rater) of the 1-5 study.
    n_implied = len(is_) * len(RATERS) * 3
    assert view["board"].ratings.n_votes == n_votes + n_implied
    assert dict(zip(view["sources"]["comparisons"], view["sources"]["kind"])) == {
        n_votes: pb.KINDS["pairwise"],
        n_implied: pb.KINDS["1-5"],
    }
    votes = store.votes(sp)
    method = {o.id: o.method for iid in ip for o in store.outputs_for_item(iid)}
    for _, row in table.iterrows():
        in_pairs = sum(row["system"] in (method[v.output_a], method[v.output_b]) for v in votes)
        assert row["comparisons"] == in_pairs + 2 * len(is_) * len(RATERS)
        cells = dict(part.split(": ") for part in row["studies (comparisons)"].split(", "))
        assert cells == {f"#{sp}": str(in_pairs), f"#{ss}": str(2 * len(is_) * len(RATERS))}
    # Three raters in both studies are three people, not six; their names are nowhere.
    assert view["board"].ratings.n_raters == len(RATERS)
    shown = view["headline"] + "\n".join(view["lines"]) + table.to_string() + view["sources"].to_string()
    assert not any(name in shown for name in RATERS)
    # The pairwise study alone: the same MLE as its own published leaderboard.
    alone = pb.cross_study_view(store, group.key, [sp], n_resamples=60)["board"].ratings.systems
    own = pairwise_view(store, sp, n_resamples=60)["result"].systems
    assert alone.set_index("system")["rating"].to_dict() == pytest.approx(own.set_index("system")["rating"].to_dict())


def test_open_and_unpublished_studies_never_reach_the_public_board(store):
    published, ip = make_study(store, "scores")
    score_all(store, ip)
    publish(store, published)
    running, ir = make_study(store, "pairwise")
    closed, ic = make_study(store, "pairwise")
    vote_all(store, ir)
    vote_all(store, ic)
    studies.close_study(store, closed)
    [group] = pb.board_groups(store)
    assert group.study_ids == (published,)
    before = pb.cross_study_view(store, group.key, n_resamples=40)["table"]
    # Attack: ask for the running (or the closed) study by id, alone or beside the published one; the
    # answer is the one a study that does not exist gets.
    answers = set()
    for wanted in ([running], [closed], [published, running], [999_999], ["1; drop"], [2**70]):
        with pytest.raises(UserError) as err:
            pb.cross_study_view(store, group.key, wanted, n_resamples=40)
        answers.add(str(err.value))
        with pytest.raises(UserError):
            pb.cross_study_view(store, None, wanted, n_resamples=40)
    assert answers == {f"{pb.NOT_ELIGIBLE} in this model set"}
    assert [sid for _, sid in pb.study_choices(store, group.key)] == [published]
    # More votes in the running study do not move the public board.
    vote_all(store, ir, raters=["dee", "eve"], seed=5)
    after = pb.cross_study_view(store, group.key, n_resamples=40)["table"]
    pd.testing.assert_frame_equal(before, after)
    # The organizer's board admits the closed study, never the running one.
    [organizer] = pb.board_groups(store, public=False)
    assert set(organizer.study_ids) == {published, closed}
    with pytest.raises(UserError, match=pb.NOT_ELIGIBLE):
        pb.cross_study_view(store, organizer.key, [running], public=False, n_resamples=40)
    # Nor do the running study's votes leave through the preference export.
    with pytest.raises(UserError, match="once it is closed"):
        pair_export.preference_rows(store, running)


def test_model_sets_get_boards_of_their_own(store):
    one, i1 = make_study(store, "scores", model="small")
    two, i2 = make_study(store, "scores", model="large")
    score_all(store, i1)
    score_all(store, i2)
    publish(store, one)
    publish(store, two)
    groups = {g.models: g for g in pb.board_groups(store)}
    assert set(groups) == {("small",), ("large",)}
    with pytest.raises(UserError, match=pb.NOT_ELIGIBLE):
        pb.cross_study_view(store, groups[("small",)].key, [two], n_resamples=40)
    view = pb.cross_study_view(store, None, [two], n_resamples=40)
    assert "large" in view["headline"] and view["group"].study_ids == (two,)


def test_a_system_is_a_method_in_one_configuration():
    def study(sid, methods, temperature):
        return SimpleNamespace(
            id=sid, methods=tuple(methods), settings={m: {"temperature": temperature, "top_p": 0.9} for m in methods}
        )

    same = pb.system_names([study(1, ["gemma · TS-Temp"], 0.7), study(2, ["TS-Temp"], 0.7)], one_model=True)
    assert same == {1: {"gemma · TS-Temp": "TS-Temp"}, 2: {"TS-Temp": "TS-Temp"}}
    other = pb.system_names([study(1, ["TS-Temp", "BS-4"], 0.7), study(2, ["TS-Temp"], 1.0)], one_model=True)
    assert other[1]["TS-Temp"] == "TS-Temp (temperature=0.7)" and other[2]["TS-Temp"] == "TS-Temp (temperature=1.0)"
    assert other[1]["BS-4"] == "BS-4"
    several = pb.system_names([study(1, ["a · BS-4", "b · BS-4"], 0.7)], one_model=False)
    assert several == {1: {"a · BS-4": "a · BS-4", "b · BS-4": "b · BS-4"}}


def test_preference_pairs_of_a_closed_study_through_the_cli(store, tmp_path):
    sid, iids = make_study(store, "pairwise", n_items=4)
    outs = store.outputs_for_item(iids[0])
    text = {o.id: o.text for o in outs}
    a, b, c = (o.id for o in outs)
    # Item 0: two raters prefer b over a, one a over b (majority b); item 0 has no other pair.
    for name, (x, y, w) in zip(RATERS, [(a, b, "b"), (b, a, "a"), (a, b, "a")]):
        store.save_vote(store.rater_id(name), iids[0], x, y, w)
    # Item 1: a tie and "both bad": no line.
    o1 = store.outputs_for_item(iids[1])
    store.save_vote(store.rater_id(RATERS[0]), iids[1], o1[0].id, o1[1].id, "tie")
    store.save_vote(store.rater_id(RATERS[1]), iids[1], o1[1].id, o1[2].id, "bothbad")
    url = store.url.render_as_string(hide_password=False) if hasattr(store.url, "render_as_string") else str(store.url)
    out = tmp_path / "pairs.jsonl"
    assert export.main(["--database", url, "--preferences", "--study", str(sid), "-o", str(out)]) == 2  # open
    assert not out.exists()
    studies.close_study(store, sid)
    assert export.main(["--database", url, "--preferences", "--study", str(sid), "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"prompt": f"prompt {sid}-0", "chosen": text[b], "rejected": text[a]}]
    assert lines == preference_pairs(pair_export.preference_rows(store, sid))
    assert len(preference_pairs(pair_export.preference_rows(store, sid), policy="every")) == 3
    assert export.main(["--database", url, "--preferences"]) == 2  # no study named


def test_the_results_tab_layer_shows_the_board_without_a_browser(store):
    from ui import results

    sp, ip = make_study(store, "pairwise")
    vote_all(store, ip)
    set_update, studies_update = results.board_sets(store)
    assert set_update["choices"] == [] and set_update["value"] is None and studies_update["choices"] == []
    publish(store, sp)
    set_update, studies_update = results.board_sets(store)
    assert [sid for _, sid in studies_update["choices"]] == [sp]
    words, table, sources = results.board_outputs(store, set_update["value"], [])
    assert (
        "1 study of m" in words
        and "30 comparisons on 10 prompts by 3 raters" in words
        and table["visible"]
        and len(table["value"]) == 3
    )
    assert list(sources["value"]["comparisons"]) == [len(RATERS) * len(ip)]
    assert results.BOARD_HELP in __import__("ui.i18n", fromlist=["ZH"]).ZH


def test_implied_comparisons_pair_every_two_methods_once():
    # The hand count in the first test (3 per item and rater) is what implied_votes gives.
    frame = pd.DataFrame(
        [
            {"study_id": 1, "item_id": i, "rater": r, "method": m, "coherence": s, "new_tokens": 3}
            for i, r in itertools.product([1, 2], ["x", "y"])
            for m, s in zip(METHODS, [5, 3, 3])
        ]
    )
    implied = pw.implied_votes(frame, ["coherence"])
    assert len(implied) == 2 * 2 * 3 and (implied["winner"] == "tie").sum() == 4


def test_a_1_to_5_study_shows_its_contrasts_at_equal_length_beside_the_primary_ones(store):
    from evaluation.report import compute_view

    sid, iids = make_study(store, "scores")
    score_all(store, iids)
    publish(store, sid)
    view = compute_view(store, sid)
    table = view["length_adjusted"]
    assert len(table) == 3 * 3 and set(table["dimension"]) == {"coherence", "informativeness", "naturalness"}
    # Unadjusted, on complete data (coherence: every output scored), it is the primary mean difference.
    primary = view["results"].pairwise
    for r in primary[primary["dimension"] == "coherence"].itertuples():
        row = table[(table["dimension"] == "coherence") & (table["a"] == r.method_a) & (table["b"] == r.method_b)]
        assert row["a − b"].item() == f"{r.mean_diff:+.2f}"
    assert table["a − b at equal length"].str.match(r"^[+-]\d").all()
