"""Compare tab helpers: what a preset set (in words), the settings in the timing table, the small-model note."""

from types import SimpleNamespace

import torch

from arena.runs.requests import MethodResult
from ui.compare import form as cform
from ui.compare import timing as ctiming


def test_preset_note_says_what_was_set_and_what_went_back_to_default():
    note = cform.preset_note("Creative")
    assert "**TS-Temp**: temperature = 1.1" in note and "top-p = 0.95" in note and "T=0.9" not in note


def test_timing_table_carries_each_methods_settings():
    fields = {f: None for f in MethodResult.__dataclass_fields__}
    fields.update(
        method="TS-Temp",
        text="x",
        new_tokens=3,
        ttft_ms=1.0,
        latency_ms=10.0,
        tokens_per_s=300.0,
        seed=0,
        finish_reason="length",
        dtype="float32",
        settings={"temperature": 1.1, "top_p": 0.95},
    )
    frame = ctiming.timing_frame([MethodResult(**fields)])
    assert frame.loc[0, "settings"] == "temperature=1.1, top_p=0.95" and list(frame.columns) == ctiming.TIMING_COLUMNS
    assert ctiming.settings_text({}) == "defaults"


def test_small_model_note_only_for_small_models():
    small = SimpleNamespace(name="SmolLM2-135M-Instruct (embedded)", model=torch.nn.Linear(1000, 135))
    assert "SmolLM2-135M-Instruct has" in cform.model_size_note(
        small
    ) and "expect weak Chinese and reasoning" in cform.model_size_note(small)
    big = SimpleNamespace(name="big", model=SimpleNamespace(parameters=lambda: [torch.empty(0)] * 0))
    assert cform.model_size_note(big) == ""


# ---- issue 24: a Compare that never shows a wall of red ------------------------------------------


def _result(method: str) -> MethodResult:
    fields = {f: None for f in MethodResult.__dataclass_fields__}
    fields.update(method=method, text="x", new_tokens=1, ttft_ms=1.0, latency_ms=2.0, tokens_per_s=3.0, seed=0)
    return MethodResult(**fields)


def test_stopped_keeps_what_finished_and_says_what_did_not():
    line = ctiming.stopped_line([_result("TS-Temp")], 3)
    assert line.startswith("**Stopped** after 1 of 3 methods") and "timing of TS-Temp is kept" in line
    assert "no method had finished" in ctiming.stopped_line([], 2)


def test_beam_search_waits_with_a_note_and_the_timing_has_its_caveat():
    assert ctiming.whole_methods(["TS-Temp", "BS-4"]) == ["BS-4"]
    assert ctiming.waiting_note(["BS-4", "TS-Temp"]) == " BS-4: beam search runs last and arrives whole."
    assert ctiming.waiting_note(["TS-Temp"]) == ""
    caveat = ctiming.timing_caveat("cpu")
    assert "One run on this machine (cpu;" in caveat and "load" in caveat


def test_a_reserved_prompt_is_one_line_and_its_example_is_greyed(tmp_path):
    from arena.inputs.prompts import SCENARIOS
    from arena.store import Store
    from arena.studies import reserved

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    sid = store.create_study("open one", methods=["TS-Temp", "Greedy"])
    store.add_items(sid, [{"prompt": SCENARIOS[1].prompt, "raw": SCENARIOS[1].raw}])
    lm = SimpleNamespace()  # no tokenizer: the check runs on the prompt text alone
    values = [p.default for _, p in cform.param_keys()]
    reserved.protect(lambda: store)
    try:
        line = cform.refusal(lm, SCENARIOS[1].prompt, ["TS-Temp"], SCENARIOS[1].raw, 0, 8, values)
        assert line.startswith("⚠ ") and "reserved" in line and "\n" not in line
        assert cform.refusal(lm, "A prompt of nobody's study.", ["TS-Temp"], False, 0, 8, values) == ""
        assert cform.refusal(lm, "x", [], False, 0, 8, values).startswith("⚠ ")  # bad settings: inline too
        samples = cform.example_samples(lm, SCENARIOS)
        assert len(samples) == len(SCENARIOS) and samples[1][0] == cform.RESERVED_EXAMPLE
        assert [s[0] for k, s in enumerate(samples) if k != 1] == [s.prompt for k, s in enumerate(SCENARIOS) if k != 1]
    finally:
        reserved.protect(None)
        store.dispose()
