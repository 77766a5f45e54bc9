"""Issue 47: the Python API, against a live app on the dummy engine.

The README's "Python API" example is read from the README (not copied) and run as it is: Compare
returns texts and timing rows of numbers, creating a study without the organizer password is
refused and creates nothing, and a rater with an invite code starts, submits scores as numbers and
goes on to the end. Then the API's shape (`view_api`: one endpoint per action, named parameters, no
duplicate) and attacks on its promises: the blind (no method, seed or output id in any answer of the
rating endpoints), submit-once (a re-sent submit writes its own item once), codes and passwords
checked on every endpoint.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from gradio_client.exceptions import AppError

import decoders
from arena import studies
from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.store import Store
from tests.support.live_app import DUMMY_FAST, ORGANIZER_PASSWORD, RATING_ONLY, shared_app
from tests.support.seeding import invite_all
from ui import api

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.timeout(900)


def readme_example() -> str:
    """The first Python block of the README's "Python API" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """The shared app on the undelayed dummy engine (tests/e2e/test_compare_view_e2e.py's too)."""
    return shared_app(tmp_path_factory.getbasetemp(), DUMMY_FAST)


def store_of(app) -> Store:
    return Store(f"sqlite:///{app.workdir / 'arena.db'}")


def test_the_readme_example_runs_and_returns_plain_data(live, monkeypatch, capsys):
    store = store_of(live)
    before = {s.id for s in store.list_studies()}
    monkeypatch.setenv("ARENA_URL", live.url)
    monkeypatch.setenv("ARENA_ORGANIZER_PASSWORD", ORGANIZER_PASSWORD)
    scope: dict = {}
    exec(compile(readme_example(), "README.md:Python API", "exec"), scope)  # noqa: S102
    printed = capsys.readouterr().out
    # Compare: a text per method asked, one timing row each with numbers, JSON all the way
    run = scope["run"]
    assert set(run["texts"]) == {"BS-4", "TS-Temp"} and all(t.strip() for t in run["texts"].values())
    assert [r["method"] for r in run["timing"]] == ["TS-Temp", "BS-4"]  # sampling first, beam search last
    for row in run["timing"]:
        assert isinstance(row["latency (ms)"], float) and row["latency (ms)"] > 0
        assert isinstance(row["tokens/s"], float) and isinstance(row["new tokens"], int) and row["seed"] == 7
    assert "__type__" not in json.dumps(run)
    # the organizer: the guess refused with its line; the study with the password made, opened and rated
    assert "refused: wrong organizer password" in printed
    made = {s.id: s for s in store.list_studies()}
    new = set(made) - before
    assert new == {scope["study"]["study"]} and made[scope["study"]["study"]].name == "API pilot"
    assert scope["study"]["state"] == "open" and "Study #" in scope["study"]["status"]
    # the rater: every response of both items scored with the top of its scale, as numbers
    page = scope["page"]
    assert page["item"] is None and page["responses"] == [] and "rated all 2 items" in page["progress"]
    ratings = store.ratings_frame(scope["study"]["study"])
    assert len(ratings) == 6 and set(ratings.rater) == {"Ann"}
    assert set(ratings[["coherence", "informativeness", "naturalness"]].to_numpy().ravel()) == {5}
    store.dispose()


def test_view_api_lists_one_endpoint_per_action_with_named_parameters(live):
    client = Client(live.url, verbose=False)
    listed = client.view_api(print_info=False, return_format="dict")
    named = listed["named_endpoints"]
    assert sorted(named) == sorted(f"/{n}" for n in api.NAMES), "exactly the API's endpoints, each once"
    assert not listed["unnamed_endpoints"]
    for name, spec in named.items():
        params = [p["parameter_name"] for p in spec["parameters"]]
        assert params and not [p for p in params if re.fullmatch(r"param_\d+", p or "")], (name, params)
        assert not re.search(r"_\d+$", name), name  # no second copy of an endpoint (the /rate page's)
        assert [r["python_type"]["type"] for r in spec["returns"]] == ["dict(str, Any)"], name
    methods = next(p for p in named["/compare_methods"]["parameters"] if p["parameter_name"] == "methods")
    assert all(f"'{m}'" in methods["python_type"]["type"] for m in decoders.names())  # the choices, not Literal[]
    client.close()


def test_a_rating_only_app_offers_the_rating_endpoints_only(tmp_path_factory):
    app = shared_app(tmp_path_factory.getbasetemp(), RATING_ONLY)  # tests/e2e/test_a11y_e2e.py's too
    info = httpx.get(f"{app.url}/gradio_api/info", timeout=60, trust_env=False).json()
    assert sorted(info["named_endpoints"]) == sorted(f"/{fn.__name__}" for fn in api.RATING)


@pytest.fixture(scope="module")
def study(live):
    """A study of 3 prompts x the article's three methods, stored outputs (dummy texts), two raters."""
    store = store_of(live)
    sid = studies.create_study(
        store, StudySpec("API blind", studies.builtin_prompts("en")[:3], max_new_tokens=4), model="m"
    )
    for item in store.items(sid):
        for method in decoders.DEFAULT_METHODS:
            store.add_output(item.id, method, 0, text=f"text of {item.public_id} ({len(method)})", settings={},
                             seed=4242, model="m", new_tokens=4)  # fmt: skip
    studies.open_study(store, sid)
    codes = invite_all(store, sid, ["Blind One", "Blind Two"])
    outputs = store.outputs_frame(sid)
    store.dispose()
    return sid, codes, outputs


def secrets(outputs, store: Store, sid: int) -> list[str]:
    found = set(decoders.names()) | {"4242", "seed", "method", "output_id"}
    found |= {f'"{i}"' for i in outputs.output_id} | {f": {i}," for i in outputs.output_id if int(i) > 9}
    found |= {str(item.id) for item in store.items(sid) if item.id > 99}
    return sorted(found)


def test_attack_the_blind_holds_in_every_answer_of_the_rating_endpoints(live, study):
    sid, codes, outputs = study
    code = codes["Blind One"]
    rater = Client(live.url, verbose=False)
    answers = [rater.predict(invite_code=code, api_name="/start_rating")]
    item = answers[0]["item"]
    answers.append(rater.predict(invite_code=code, item=item, api_name="/next_item"))
    answers.append(rater.predict(invite_code=code, item=item + 1, api_name="/previous_item"))
    answers.append(rater.predict(invite_code=code, item=item, reason="other", response="A", note="x",
                                 api_name="/flag_item"))  # fmt: skip
    scores = {r["label"]: {"coherence": 4, "informativeness": 3, "naturalness": "Can't judge"}
              for r in answers[0]["responses"]}  # fmt: skip
    answers.append(rater.predict(invite_code=code, item=item, scores=scores, api_name="/submit_scores"))
    answers.append(rater.predict(invite_code=code, item=2, reason="unclear", api_name="/skip_item"))
    store = store_of(live)
    leaks = secrets(outputs, store, sid)
    store.dispose()
    for answer in answers:
        raw = json.dumps(answer)
        assert not [s for s in leaks if s in raw], (raw, [s for s in leaks if s in raw])
    # the answers still say what a rater needs: the texts by letter, the scores as numbers
    assert [r["label"] for r in answers[0]["responses"]] == ["A", "B", "C"]
    assert answers[4]["item"] == 2 and "Saved" in answers[4]["status"]
    back = rater.predict(invite_code=code, item=2, api_name="/previous_item")
    assert [r["scores"] for r in back["responses"]] == [{"coherence": 4, "informativeness": 3,
                                                         "naturalness": "Can't judge"}] * 3  # fmt: skip
    rater.close()


def test_attack_a_resent_submit_writes_its_own_item_once(live, study):
    sid, codes, _ = study
    code = codes["Blind Two"]
    rater = Client(live.url, verbose=False)
    page = rater.predict(invite_code=code, api_name="/start_rating")
    scores = {r["label"]: {"coherence": 2, "informativeness": 2, "naturalness": 2} for r in page["responses"]}
    first = rater.predict(invite_code=code, item=page["item"], scores=scores, api_name="/submit_scores")
    again = rater.predict(invite_code=code, item=page["item"], scores=scores, api_name="/submit_scores")
    assert first["item"] == again["item"] == page["item"] + 1  # the copy did not move on, nor land there
    store = store_of(live)
    mine = store.ratings_frame(sid).query("rater == 'Blind Two'")
    store.dispose()
    assert len(mine) == 3 and mine.item_id.nunique() == 1  # one rating per response, of the one item
    # a missing score saves nothing and names what is missing
    partial = {"A": {"coherence": 3}}
    refused = rater.predict(invite_code=code, item=first["item"], scores=partial, api_name="/submit_scores")
    assert refused["item"] == first["item"] and ["A", "informativeness"] in refused["missing"]
    store = store_of(live)
    assert len(store.ratings_frame(sid).query("rater == 'Blind Two'")) == 3
    store.dispose()
    rater.close()


@pytest.mark.parametrize(
    "endpoint,kwargs",
    [
        ("/start_rating", {}),
        ("/submit_scores", {"item": 1, "scores": {"A": {"coherence": 5}}}),
        ("/next_item", {"item": 1}),
        ("/skip_item", {"item": 1, "reason": "other", "note": "n"}),
        ("/flag_item", {"item": 1, "reason": "other"}),
        ("/answer_question", {"item": 1, "answers": ["A"]}),
    ],
)
def test_attack_a_wrong_code_opens_nothing_on_any_rating_endpoint(live, study, endpoint, kwargs):
    rater = Client(live.url, verbose=False)
    with pytest.raises(AppError, match="invite code"):
        rater.predict(invite_code="not-a-code-" + endpoint.strip("/"), **kwargs, api_name=endpoint)
    rater.close()


def test_attack_scores_the_page_could_not_send_are_refused(live, study):
    _, codes, _ = study
    rater = Client(live.url, verbose=False)
    for bad in ({"A": {"coherence": 9}}, {"A": {"coherence": True}}, {"Z": {"coherence": 3}},
                {"A": {"method": 3}}, {"A": 5}):  # fmt: skip
        with pytest.raises(AppError):
            rater.predict(invite_code=codes["Blind One"], item=3, scores=bad, api_name="/submit_scores")
    rater.close()


def test_attack_organizer_endpoints_without_the_password_do_nothing(live, study):
    sid, _, _ = study
    store = store_of(live)
    before = (len(store.list_studies()), len(store.enrolments(sid)))
    client = Client(live.url, verbose=False)
    for password in ("", "organizer", ORGANIZER_PASSWORD + " "):
        with pytest.raises(AppError, match="organizer password"):
            client.predict(organizer_password=password, name="x", prompts=["y"], api_name="/create_study")
        with pytest.raises(AppError, match="organizer password"):
            client.predict(organizer_password=password, study=sid, raters=["Mallory"], api_name="/invite_raters")
    after = (len(store.list_studies()), len(store.enrolments(sid)))
    assert after == before
    store.dispose()
    client.close()


@pytest.fixture(scope="module")
def pair_study(live):
    """A pairwise study of 3 prompts x two methods, stored outputs (dummy texts), one rater."""
    store = store_of(live)
    spec = StudySpec("API pairs", studies.builtin_prompts("en")[:3], methods=["BS-4", "TS-Temp"], design="pairwise")
    sid = studies.create_study(store, spec, model="m")
    for item in store.items(sid):
        for method in spec.methods:
            store.add_output(item.id, method, 0, text=f"pair text of {item.public_id} ({len(method)})", settings={},
                             seed=4242, model="m", new_tokens=4)  # fmt: skip
    studies.open_study(store, sid)
    codes = invite_all(store, sid, ["Pair One"])
    outputs = store.outputs_frame(sid)
    store.dispose()
    return sid, codes, outputs


def test_a_pairwise_rater_votes_through_the_api_once_per_pair(live, pair_study):
    sid, codes, outputs = pair_study
    code = codes["Pair One"]
    rater = Client(live.url, verbose=False)
    page = rater.predict(invite_code=code, api_name="/start_rating")
    assert page["design"] == "pairwise" and page["item"] == 1 and page["of"] == 3 and page["vote"] is None
    assert [r["label"] for r in page["responses"]] == ["A", "B"] and all(r["text"] for r in page["responses"])
    voted = rater.predict(invite_code=code, item=1, vote="both bad", reasons=[], note="", api_name="/vote_pair")
    assert voted["item"] == 2 and voted["vote"] is None and "1 of 3" in voted["progress"]
    # the same vote sent again (a lost reply): a repeat, refused; nothing lands on pair 2
    again = rater.predict(invite_code=code, item=1, vote="A", api_name="/vote_pair")
    assert again["item"] == 2 and again["status"] == "That was saved already; nothing changed."
    store = store_of(live)
    votes = store.votes(sid)
    assert [(v.item_ordinal + 1, v.winner) for v in votes] == [(1, "bothbad")]  # ordinals count from 0
    tie = rater.predict(invite_code=code, item=2, vote="tie", api_name="/vote_pair")
    back = rater.predict(invite_code=code, item=tie["item"], api_name="/previous_item")
    assert back["item"] == 2 and back["vote"] == "tie"
    assert sorted((v.item_ordinal + 1, v.winner) for v in store.votes(sid)) == [(1, "bothbad"), (2, "tie")]
    flagged = rater.predict(invite_code=code, item=3, reason="other", response="B", note="odd", api_name="/flag_item")
    skipped = rater.predict(invite_code=code, item=3, reason="unclear", api_name="/skip_item")
    assert flagged["item"] == 3 and "B" in flagged["status"] and skipped["item"] is None
    assert "all 3" in skipped["progress"] and len(store.votes(sid)) == 2
    leaks = secrets(outputs, store, sid)
    store.dispose()
    for answer in (page, voted, again, tie, back):
        raw = json.dumps(answer)
        assert not [s for s in leaks if s in raw] and "__type__" not in raw, raw
    with pytest.raises(AppError, match="vote must be one of"):
        rater.predict(invite_code=code, item=3, vote="C", api_name="/vote_pair")
    with pytest.raises(AppError, match="invite code"):
        rater.predict(invite_code="not-a-code", item=3, vote="A", api_name="/vote_pair")
    rater.close()


def test_a_scored_study_takes_no_pairwise_vote(live, study):
    _, codes, _ = study
    rater = Client(live.url, verbose=False)
    with pytest.raises(AppError, match="submit_scores"):
        rater.predict(invite_code=codes["Blind One"], item=1, vote="A", api_name="/vote_pair")
    rater.close()


def test_create_study_takes_a_rubric_and_a_design_behind_the_password(live):
    store = store_of(live)
    before = len(store.list_studies())
    client = Client(live.url, verbose=False)
    rubric = {"dimensions": [{"name": "clarity", "low": 1, "high": 7}, {"name": "tone", "low": 0, "high": 10}]}
    with pytest.raises(AppError, match="organizer password"):
        client.predict(organizer_password="guess", name="x", prompts=["y"], rubric=rubric, design="pairwise",
                       api_name="/create_study")  # fmt: skip
    assert len(store.list_studies()) == before
    made = client.predict(organizer_password=ORGANIZER_PASSWORD, name="API rubric", prompts=["Describe rain."],
                          max_new_tokens=4, rubric=json.dumps(rubric), api_name="/create_study")  # fmt: skip
    pairs = client.predict(organizer_password=ORGANIZER_PASSWORD, name="API pairs made", prompts=["Describe snow."],
                           methods=["BS-4", "TS-Temp"], max_new_tokens=4, design="pairwise",
                           api_name="/create_study")  # fmt: skip
    with pytest.raises(AppError, match="design must be one of"):
        client.predict(organizer_password=ORGANIZER_PASSWORD, name="z", prompts=["y"], design="ranked",
                       api_name="/create_study")  # fmt: skip
    scored, paired = store.get_study(made["study"]), store.get_study(pairs["study"])
    assert scored.design == "scores" and [d.name for d in blind.study_rubric(store, scored.id).dimensions] == [
        "clarity", "tone"]  # fmt: skip
    assert paired.design == "pairwise" and paired.state == "open"
    codes = client.predict(organizer_password=ORGANIZER_PASSWORD, study=paired.id, raters=["Bo"],
                           api_name="/invite_raters")["codes"]  # fmt: skip
    page = client.predict(invite_code=codes["Bo"], api_name="/start_rating")
    assert page["design"] == "pairwise" and len(page["responses"]) == 2
    first = client.predict(invite_code=codes["Bo"], item=page["item"], vote="B", api_name="/vote_pair")
    assert first["item"] is None and "1" in first["progress"]
    store.dispose()
    client.close()


def test_a_pairwise_raters_blind_question_through_the_api(live):
    store = store_of(live)
    spec = StudySpec("API pair guess", studies.builtin_prompts("en")[:2], methods=["BS-4", "TS-Temp"],
                     design="pairwise", guess_methods="TS-Temp")  # fmt: skip
    sid = studies.create_study(store, spec, model="m")
    for item in store.items(sid):
        for method in spec.methods:
            store.add_output(item.id, method, 0, text=f"guess text {item.public_id} {method[:2]}", settings={},
                             seed=1, model="m", new_tokens=4)  # fmt: skip
    studies.open_study(store, sid)
    code = invite_all(store, sid, ["Guess One"])["Guess One"]
    rater = Client(live.url, verbose=False)
    page = rater.predict(invite_code=code, api_name="/start_rating")
    assert page["question"] is None  # asked only once the pair is voted on
    voted = rater.predict(invite_code=code, item=1, vote="A", api_name="/vote_pair")
    assert voted["item"] == 1 and voted["vote"] == "A"
    assert voted["question"] == {"methods": ["TS-Temp"], "choices": ["A", "B", "Don't know"]}
    again = rater.predict(invite_code=code, item=1, vote="B", api_name="/vote_pair")  # a repeat: the question stays
    assert again["item"] == 1 and again["question"] and again["status"] == "That was saved already; nothing changed."
    answered = rater.predict(invite_code=code, item=1, answers=["B"], api_name="/answer_question")
    assert answered["item"] == 2 and answered["question"] is None
    assert [v.winner for v in store.votes(sid)] == ["a"]  # the repeat wrote nothing
    assert store.pair_answered(store.find_rater("Guess One"), store.items(sid)[0].id)
    store.dispose()
    rater.close()
