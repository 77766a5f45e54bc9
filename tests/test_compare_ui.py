"""Compare tab helpers: what a preset set (in words), the settings in the timing table, the small-model note."""

from types import SimpleNamespace

import torch

from arena.runner import MethodResult
from ui import compare


def test_preset_note_says_what_was_set_and_what_went_back_to_default():
    note = compare.preset_note("Creative")
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
    frame = compare.timing_frame([MethodResult(**fields)])
    assert frame.loc[0, "settings"] == "temperature=1.1, top_p=0.95" and list(frame.columns) == compare.TIMING_COLUMNS
    assert compare.settings_text({}) == "defaults"


def test_small_model_note_only_for_small_models():
    small = SimpleNamespace(name="SmolLM2-135M-Instruct (embedded)", model=torch.nn.Linear(1000, 135))
    assert "SmolLM2-135M-Instruct has" in compare.model_size_note(
        small
    ) and "expect weak Chinese and reasoning" in compare.model_size_note(small)
    big = SimpleNamespace(name="big", model=SimpleNamespace(parameters=lambda: [torch.empty(0)] * 0))
    assert compare.model_size_note(big) == ""
