"""Studies: prompt sets, validation, resumable pre-generation with the real model, quick items."""

from __future__ import annotations

import json

import pytest

from arena import studies
from arena.inputs.prompts import SCENARIOS
from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.runs.requests import MethodResult
from arena.store import Store
from common.errors import UserError


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def test_builtin_prompts_are_the_scenarios():
    assert [p.prompt for p in studies.builtin_prompts()] == [s.prompt for s in SCENARIOS]
    en = studies.builtin_prompts("en")
    assert len(en) == 3 and {p.language for p in en} == {"en"}
    assert {p.scenario for p in en} == {"short-qa", "letter", "sci-fi"}
    assert [p.raw for p in en] == [s.raw for s in SCENARIOS if s.language == "en"]
    with pytest.raises(UserError):
        studies.builtin_prompts("fr")


def test_pasted_list_and_files(tmp_path):
    assert [p.prompt for p in studies.parse_pasted("one\n\n  two  \n")] == ["one", "two"]
    csv_path = tmp_path / "p.csv"
    csv_path.write_text(
        'prompt,scenario,raw\n"Hello, world",greet,no\nContinue: once,story,yes\n,,\n', encoding="utf-8"
    )
    specs = studies.parse_prompt_file(csv_path)
    assert [(s.prompt, s.scenario, s.raw) for s in specs] == [
        ("Hello, world", "greet", False),
        ("Continue: once", "story", True),
    ]
    jl = tmp_path / "p.jsonl"
    jl.write_text(
        json.dumps({"prompt": "解释一下", "language": "zh"}, ensure_ascii=False) + "\n\n" + json.dumps("plain") + "\n",
        encoding="utf-8",
    )
    specs = studies.parse_prompt_file(jl)
    assert [(s.prompt, s.language) for s in specs] == [("解释一下", "zh"), ("plain", "")]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("a.csv", "text\nhello\n", "'prompt' column"),
        ("a.jsonl", '{"prompt": "ok"}\n{broken\n', "line 2"),
        ("a.jsonl", '{"text": "x"}\n', "no 'prompt'"),
        ("a.md", "hello", ".csv"),
        ("a.csv", "prompt\n", "no prompts"),
    ],
)
def test_bad_prompt_files_say_what_is_wrong(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=message):
        studies.parse_prompt_file(path)


def test_create_study_validates_before_storing(store):
    prompts = studies.builtin_prompts("en")
    bad = [
        dict(methods=["NOPE"]),
        dict(samples_per_method=0),
        dict(samples_per_method=1.5),
        dict(max_new_tokens=0),
        dict(settings={"TS-Temp": {"temperature": -1}}),
        dict(settings={"TS-Temp": {"temperature": 0.5}}, methods=["BS-4"]),
        dict(samples_per_method=5),  # 1 + 5 + 5 responses per item: too many to compare
    ]
    for kwargs in bad:
        with pytest.raises(UserError):
            studies.create_study(store, StudySpec("x", prompts, **kwargs))
    with pytest.raises(UserError):
        studies.create_study(store, StudySpec(" ", prompts))
    with pytest.raises(UserError):
        studies.create_study(store, StudySpec("x", []))
    assert store.list_studies() == []
    sid = studies.create_study(
        store, StudySpec("ok", prompts, settings={"TS-Temp": {"temperature": 0.5}}, samples_per_method=2)
    )
    study = store.get_study(sid)
    assert study.methods == ("BS-4", "TS-Temp", "TS-Tilted")  # the default three
    assert study.settings["TS-Temp"]["temperature"] == 0.5 and study.settings["TS-Temp"]["top_p"] == 0.95
    assert studies.expected_slots(study.methods, 2) == [
        ("BS-4", 0),
        ("TS-Temp", 0),
        ("TS-Temp", 1),
        ("TS-Tilted", 0),
        ("TS-Tilted", 1),
    ]
    assert len(store.items(sid)) == 3
    assert study.state == "draft"  # opened for rating only once its outputs are generated
    with pytest.raises(UserError, match="not open"):
        blind.open_item(store, "ann", sid)


def test_pregeneration_is_resumable_without_duplicates(store, lm):
    sid = studies.create_study(
        store,
        StudySpec(
            "gen", [studies.PromptSpec("Say hi.", "t", "en")], samples_per_method=2, max_new_tokens=4, base_seed=10
        ),
        model=lm.name,
    )
    calls: list[tuple[int, int]] = []
    stop_after = {"n": 2}

    def should_stop() -> bool:
        return len(store.output_slots(sid)) >= stop_after["n"]

    first = studies.generate_study(
        store, lm, sid, progress=lambda d, t, _: calls.append((d, t)), should_stop=should_stop
    )
    assert (first.total, first.existing, first.generated, first.complete) == (5, 0, 2, False)
    assert calls[0] == (0, 5) and calls[-1] == (2, 5)
    assert studies.ready_item_ids(store, sid) == []  # half-generated items are not rated
    assert not first.opened and store.get_study(sid).state == "draft"
    second = studies.generate_study(store, lm, sid)
    assert (second.existing, second.generated, second.complete) == (2, 3, True)
    assert second.opened and store.get_study(sid).state == "open"
    third = studies.generate_study(store, lm, sid)
    assert (third.existing, third.generated) == (5, 0)
    frame = store.outputs_frame(sid)
    assert len(frame) == 5 and not frame.duplicated(["item_id", "method", "sample_index"]).any()
    # each (item, method, sample) has its own seed derived from the base seed: reproducible, and no
    # two methods or samples share one (nor can one be told from another)
    seeds = {(r.method, r.sample_index): r.seed for r in frame.itertuples()}
    public_id = store.items(sid)[0].public_id
    assert seeds == {(m, k): studies.derive_seed(10, public_id, m, k) for m, k in seeds}
    assert len(set(seeds.values())) == 5 and 10 not in seeds.values()
    assert all(0 <= seed < 2**62 for seed in seeds.values())
    assert (frame.new_tokens <= 4).all() and set(frame.model) == {lm.name}
    # each method's first output is timed alone; the rest may come from a batch (no per-output timing)
    timed = frame.dropna(subset=["latency_ms"])
    assert (timed.latency_ms > 0).all() and set(timed.method) == set(frame.method)
    settings = json.loads(frame.set_index(["method", "sample_index"]).loc[("TS-Temp", 1), "settings"])
    assert settings["temperature"] == 0.9 and settings["max_new_tokens"] == 4
    assert studies.ready_item_ids(store, sid) == [store.items(sid)[0].id]


def _result(method: str, text: str, seed: int = 0) -> MethodResult:
    return MethodResult(
        method=method,
        text=text,
        new_tokens=3,
        ttft_ms=1.0,
        latency_ms=9.0,
        tokens_per_s=333.0,
        settings={"method": method, "max_new_tokens": 16},
        seed=seed,
        prompt_tokens=5,
    )


def test_quick_item_makes_a_one_item_adhoc_study_ready_to_rate(store):
    results = [_result("BS-4", "beam says"), _result("TS-Temp", "temp says"), _result("TS-Tilted", "tilt says")]
    study_id, item_id = studies.quick_item(store, "tiny-model", "Tell me a joke.", results, raw=False)
    study = store.get_study(study_id)
    assert study.kind == "adhoc" and study.model == "tiny-model"
    assert store.get_item(item_id).study_id == study_id
    frame = store.outputs_frame(study_id)
    assert sorted(frame.text) == ["beam says", "temp says", "tilt says"] and set(frame.latency_ms) == {9.0}
    view, _ = blind.open_item(store, "ann", study_id)
    assert view.total == 1 and view.prompt == "Tell me a joke." and len(view.responses) == 3
    assert blind.locate(store, study_id, store.get_item(item_id).public_id) == 1
    with pytest.raises(UserError):
        studies.quick_item(store, "m", "x", results[:1])
    with pytest.raises(UserError):
        studies.quick_item(store, "m", "   ", results)
