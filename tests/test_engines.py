"""The engine seam (arena/engines): one interface, three engines, `current()` never None, and one
study generator (arena/studies/generate.py) that every engine feeds through `generate_slots`.

No model runs here except where a test says so: the dummy engine and a vLLM engine whose HTTP
client is replaced by a stand-in cover the generator and the interface in a few seconds."""

from __future__ import annotations

import inspect
import threading
import time
from types import SimpleNamespace

import gradio as gr
import pytest
import torch

import decoders
from arena import engines, settings, studies
from arena.engines import DummyEngine, Engine, LocalEngine, VllmEngine
from arena.engines.base import Engine as BaseEngine
from arena.engines.vllm import ServerInfo, VllmClient
from arena.rating.study_spec import StudySpec
from arena.runs.requests import MethodResult, RunRequest, SlotJob, run_order
from arena.store import Store
from common.errors import UserError

PROMPT = "Name a colour."
ENGINES_MADE = {
    "transformers": lambda: LocalEngine(),
    "vllm": lambda: VllmEngine("http://127.0.0.1:9"),  # nothing is sent until a request runs
    "dummy": lambda: DummyEngine(),
}


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def no_model() -> SimpleNamespace:
    """What the dummy engine gets as `lm`: it reads nothing of it."""
    return SimpleNamespace(name="stand-in", device=torch.device("cpu"), dtype_name="float32", context_length=2048)


# ---- one interface --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENGINES_MADE))
def test_every_engine_is_an_engine_with_the_interfaces_signatures(name):
    engine = ENGINES_MADE[name]()  # an abstract method left out would make this raise TypeError
    assert isinstance(engine, Engine) and engine.name == name
    assert isinstance(engine.in_process, bool)
    for method in ("describe", "model_label", "check", "stream_methods", "run_methods", "generate_slots"):
        ours = inspect.signature(getattr(type(engine), method))
        theirs = inspect.signature(getattr(BaseEngine, method))
        assert list(ours.parameters) == list(theirs.parameters), (name, method)
        assert [p.default for p in ours.parameters.values()] == [p.default for p in theirs.parameters.values()]


def test_the_interface_itself_cannot_run():
    with pytest.raises(TypeError):
        Engine()  # type: ignore[abstract]


@pytest.mark.parametrize("value, kind", [(None, LocalEngine), ("", LocalEngine), ("transformers", LocalEngine),
                                         (" VLLM ", VllmEngine), ("dummy", DummyEngine)])  # fmt: skip
def test_current_is_never_none(monkeypatch, value, kind):
    if value is None:
        monkeypatch.delenv("ARENA_ENGINE", raising=False)
    else:
        monkeypatch.setenv("ARENA_ENGINE", value)
    monkeypatch.setenv("ARENA_VLLM_URL", "http://127.0.0.1:9")
    assert isinstance(engines.current(), kind)
    assert engines.current() is engines.current()  # one shared engine per setting (one client per server)


def test_an_unknown_engine_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("ARENA_ENGINE", "tgi")
    with pytest.raises(UserError, match="ARENA_ENGINE must be one of transformers, vllm, llamacpp, dummy"):
        engines.current()


# ---- the dummy engine -----------------------------------------------------------------------------


def test_the_dummy_is_deterministic_validated_and_ordered_like_the_real_engines():
    dummy = DummyEngine()
    req = RunRequest(PROMPT, ["BS-4", "TS-Temp", "TS-Tilted"], max_new_tokens=8, seed=3)
    first = dummy.run_methods(no_model(), req)
    assert [r.method for r in first] == req.methods  # results in the order asked
    assert first == dummy.run_methods(no_model(), req)  # same request, same everything
    other = dummy.run_methods(no_model(), RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=8, seed=4))
    assert other[0].token_ids != first[1].token_ids
    for r in first:
        assert 1 <= r.new_tokens <= 8 == r.settings["max_new_tokens"] and r.text
        assert r.settings["engine"] == {"name": "dummy"} and "makes its timing up" in r.settings["timing"]["measured"]
    # the method's resolved settings, as the real engines record them
    assert {k: first[2].settings[k] for k in ("alpha", "temperature")} == {
        k: decoders.get("TS-Tilted").resolve(None)[k] for k in ("alpha", "temperature")
    }
    events = list(dummy.stream_methods(no_model(), req))
    assert [e.method for e in events if e.result is not None] == run_order(req.methods)
    assert all(e.total == 3 for e in events)
    beam = [e for e in events if e.method == "BS-4"]
    assert [e.text for e in beam] == ["", first[0].text]  # whole outputs arrive at once
    temp = [e.text for e in events if e.method == "TS-Temp" and e.result is None]
    assert len(temp) == first[1].new_tokens + 1 and all(a in b for a, b in zip(temp, temp[1:]))
    with pytest.raises(UserError, match="max_new_tokens"):
        dummy.run_methods(no_model(), RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=0))
    with pytest.raises(UserError, match="settings given for methods not being run"):
        dummy.run_methods(no_model(), RunRequest(PROMPT, ["TS-Temp"], {"BS-4": {}}))


def test_a_cancelled_dummy_run_stops_at_the_next_word():
    cancel = threading.Event()
    events = DummyEngine().stream_methods(
        no_model(), RunRequest(PROMPT, ["TS-Temp", "BS-4"], max_new_tokens=20), cancel=cancel
    )
    assert next(events).text == "" and next(events).text
    cancel.set()
    assert list(events) == []
    with pytest.raises(UserError, match="stopped before all methods finished"):
        DummyEngine().run_methods(no_model(), RunRequest(PROMPT, ["TS-Temp"]), cancel=cancel)


def test_the_dummy_token_delay_is_real_time_for_every_method_and_is_the_timing(monkeypatch):
    """ARENA_DUMMY_TOKEN_DELAY: the app's dummy waits that long per word, beam search's words too (it
    holds the generation slot as a model would), and reports that waiting as its timing; the words are
    the ones it writes without a delay."""
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    monkeypatch.setenv("ARENA_DUMMY_TOKEN_DELAY", "0.02")
    engine = engines.current()
    assert engine is engines.DUMMY and engine.token_delay_s == 0.02
    req = RunRequest(PROMPT, ["TS-Temp", "BS-4"], max_new_tokens=12, seed=7)
    started = time.perf_counter()
    events = list(engine.stream_methods(no_model(), req))
    wall_ms = (time.perf_counter() - started) * 1000
    results = [e.result for e in events if e.result is not None]
    plain = DummyEngine(0.0).run_methods(no_model(), req)
    assert [r.token_ids for r in results] == [r.token_ids for r in plain]
    for r in results:
        assert r.latency_ms >= 20 * r.new_tokens, (r.method, r.latency_ms, r.new_tokens)
        assert 20 <= r.ttft_ms <= r.latency_ms
        assert "token delay" in r.settings["timing"]["measured"]
    assert sum(r.latency_ms for r in results) <= wall_ms
    assert [e.text for e in events if e.method == "BS-4"] == ["", plain[1].text]  # still whole, after its wait
    monkeypatch.setenv("ARENA_DUMMY_TOKEN_DELAY", "")
    assert engines.current().token_delay_s == 0.0
    for bad in ("-0.1", "soon", "inf"):
        with pytest.raises(settings.SettingError, match="ARENA_DUMMY_TOKEN_DELAY must be seconds >= 0"):
            settings.load([], {"ARENA_DUMMY_TOKEN_DELAY": bad})


def test_stop_ends_a_delayed_dummy_beam_search_within_a_word():
    """Compare's Stop while beam search (a whole output) waits out its delay: it ends at once, not
    after the method's remaining words."""
    cancel = threading.Event()
    events = DummyEngine(1.0).stream_methods(no_model(), RunRequest(PROMPT, ["BS-4"], max_new_tokens=20), cancel=cancel)
    assert next(events).text == ""  # BS-4 started: at least 10 words, 10 s, ahead
    threading.Timer(0.2, cancel.set).start()
    started = time.perf_counter()
    assert list(events) == []
    assert time.perf_counter() - started < 5.0


def test_the_compare_tab_runs_on_the_dummy_engine(monkeypatch, store):
    """The whole Compare handler, as Gradio calls it, with no model: texts stream, the timing table fills."""
    from ui import AppContext, compare
    from ui.compare.form import param_keys

    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    lm = SimpleNamespace(**vars(no_model()), model=torch.nn.Linear(2, 2))
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: lm, extras={"store": store}))
    run = next(f for f in demo.fns.values() if f.api_name == "compare")
    values = [p.default for _, p in param_keys()]
    record = False  # "Record why each token was chosen"
    models = [lm.name]  # the app's model alone (tests/test_compare_grid.py runs the grid)
    updates = list(
        run.fn(SimpleNamespace(session_hash="s"), PROMPT, ["TS-Temp", "BS-4"], False, 5, 6, record, *values, models)
    )
    *_, timing, _figure, state, _grid = updates[-1]
    table = timing["value"]  # shown once a method has finished (hidden while empty)
    assert timing["visible"] is True
    expected = DummyEngine().run_methods(no_model(), RunRequest(PROMPT, ["TS-Temp", "BS-4"], max_new_tokens=6, seed=5))
    assert list(table["method"]) == ["TS-Temp", "BS-4"]
    assert [r.text for r in state["results"]] == [r.text for r in expected]
    assert "Done: 2 methods" in updates[-1][0]["value"]


# ---- one study generator, every engine -------------------------------------------------------------


class Recording(DummyEngine):
    """The dummy, noting the jobs it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[SlotJob] = []

    def generate_slots(self, lm, job, should_stop=None):
        self.jobs.append(job)
        return super().generate_slots(lm, job, should_stop)


def make_study(store, methods=("TS-Temp", "BS-4"), samples=2, prompts=("Say hi.", "Name a fruit.", "Count to two.")):
    return studies.create_study(
        store,
        StudySpec(
            "engine seam",
            [studies.PromptSpec(p) for p in prompts],
            methods=list(methods),
            samples_per_method=samples,
            max_new_tokens=6,
            base_seed=11,
        ),
    )


def stored(store, sid):
    return {(o.item_id, o.method, o.sample_index): o for i in store.items(sid) for o in store.outputs_for_item(i.id)}


def test_the_study_generator_asks_the_engine_for_the_missing_slots_and_stores_them(store):
    sid = make_study(store)
    engine = Recording()
    seen = []
    report = studies.generate_study(store, no_model(), sid, progress=lambda *a: seen.append(a), engine=engine)
    assert (report.total, report.generated, report.complete, report.opened) == (9, 9, True, True)
    assert store.get_study(sid).state == "open"
    [job] = engine.jobs
    assert len(job.slots) == 9 and job.batch_size == 16 and job.max_new_tokens == 6
    assert job.settings["BS-4"]["num_beams"] == 4  # the study's stored settings
    items = {i.id: i for i in store.items(sid)}
    for (item_id, method, sample), out in stored(store, sid).items():
        # every engine's seed is the study's: derive_seed of the base seed and the slot
        assert out.seed == studies.derive_seed(11, items[item_id].public_id, method, sample)
        assert out.model == "dummy engine (fake text)" and out.latency_ms is not None and out.text
    assert seen[0] == (0, 9, "starting") and seen[-1] == (9, 9, "done")
    assert seen[1][2] == "item 1, TS-Temp sample 1"
    again = studies.generate_study(store, no_model(), sid, engine=engine)
    # nothing missing: the engine is not asked again (and no model is loaded for it)
    assert (again.existing, again.generated) == (9, 0) and len(engine.jobs) == 1


def test_a_stop_keeps_what_was_stored_and_the_next_run_resumes(store):
    sid = make_study(store)
    calls = []
    first = studies.generate_study(
        store,
        no_model(),
        sid,
        should_stop=lambda: len(calls) >= 4,
        progress=lambda *a: calls.append(a),
        engine=DummyEngine(),
    )
    assert (first.generated, first.complete) == (3, False) and store.get_study(sid).state == "draft"
    before = {k: o.text for k, o in stored(store, sid).items()}
    second = studies.generate_study(store, no_model(), sid, engine=DummyEngine())
    assert (second.existing, second.generated, second.opened) == (3, 6, True)
    assert all(stored(store, sid)[k].text == text for k, text in before.items())  # nothing regenerated


def test_one_generation_run_per_study(store):
    sid = make_study(store)
    with studies.generating(sid):
        with pytest.raises(UserError, match="being generated already"):
            studies.generate_study(store, no_model(), sid, engine=DummyEngine())
    assert not studies.being_generated(sid)
    with pytest.raises(UserError, match="batch size"):
        studies.generate_study(store, no_model(), sid, batch_size=0, engine=DummyEngine())


class StandInServer(VllmClient):
    """A vLLM client that answers itself: the server's info, and one deterministic completion per request."""

    def __init__(self) -> None:
        super().__init__("http://stand-in.invalid")
        self.sent: list[dict] = []
        self.lock = threading.Lock()

    def info(self) -> ServerInfo:
        return ServerInfo(self.url, "served-model", 2048, "0.0", {"ArenaTilt", "ArenaNoRepeatNGram"})

    def execute(self, lm, req, input_ids, seed, on_tokens=None, cancel=None) -> MethodResult:
        with self.lock:
            self.sent.append(req.body)
        ids = [int(seed or 0) % 1000, len(input_ids)]
        return MethodResult(
            req.method,
            f"{req.method} {ids}",
            2,
            1.0,
            2.0,
            1000.0,
            dict(req.effective),
            seed,
            len(input_ids),
            token_ids=ids,
        )


def test_the_vllm_engine_feeds_the_same_generator(lm, store):
    """`VllmEngine.generate_slots` through the one generator: every output alone with the study's seed
    (whatever the batch size), the server's label in the model column, a refused method refused
    before any request."""
    sid = make_study(store, methods=("TS-Temp", "Greedy"), samples=2, prompts=("Say hi.", "Name a fruit."))
    engine = VllmEngine("http://stand-in.invalid")
    engine.client = StandInServer()
    report = studies.generate_study(store, lm, sid, batch_size=16, engine=engine)
    assert (report.total, report.generated, report.opened) == (6, 6, True)
    sent = engine.client.sent
    assert len(sent) == 6 and all(b["model"] == "served-model" and "stream" in b for b in sent)
    items = {i.id: i for i in store.items(sid)}
    for (item_id, method, sample), out in stored(store, sid).items():
        assert out.seed == studies.derive_seed(11, items[item_id].public_id, method, sample)
        assert out.model == "served-model (vLLM 0.0 at http://stand-in.invalid)"
        assert out.latency_ms == 2.0  # timed, never batched on this side
    seeds_sent = sorted(b["seed"] for b in sent if b["temperature"] > 0)
    assert seeds_sent == sorted(o.seed for o in stored(store, sid).values() if o.method == "TS-Temp")
    bad = studies.create_study(
        store, StudySpec("engine seam two", [studies.PromptSpec("Hi.")], methods=["TS-Temp", "Multi-Arm"])
    )
    with pytest.raises(UserError, match="Multi-Arm cannot run on the vLLM engine"):
        studies.generate_study(store, lm, bad, engine=engine)
    assert store.output_slots(bad) == set() and len(sent) == 6


def test_the_in_process_engine_feeds_the_same_generator(lm, store):
    """The same generator on the real model: alone and timed at batch size 1, seeds as for every engine."""
    sid = make_study(store, methods=("TS-Temp",), samples=1, prompts=("Say hi.",))
    report = studies.generate_study(store, lm, sid, batch_size=1, engine=engines.LOCAL)
    assert report.generated == 1
    [out] = stored(store, sid).values()
    [item] = store.items(sid)
    seed = studies.derive_seed(11, item.public_id, "TS-Temp", 0)
    [alone] = engines.LOCAL.run_methods(lm, RunRequest(item.prompt, ["TS-Temp"], max_new_tokens=6, seed=seed))
    assert out.seed == seed and out.text == alone.text and out.model == lm.name
