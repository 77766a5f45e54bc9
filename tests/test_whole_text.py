"""Outputs never end in a partial character: a byte-level token can split a UTF-8 character, and an
output cut at max_new_tokens between its bytes printed U+FFFD ("…也可以满�") to raters."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from arena.engines.local.generate import result_of
from arena.model.memory import MemoryReading


def cut_mid_character(lm) -> tuple[list[int], list[int]]:
    """The prompt ids and new ids of "也可以满意" cut one byte into "满" (the embedded model's
    byte-level tokenizer spends three tokens on it)."""
    ids = lm.tokenizer.encode("也可以满意", add_special_tokens=False)
    whole = lm.tokenizer.decode(ids[:4])
    cut = next(n for n in range(5, len(ids)) if lm.tokenizer.decode(ids[:n]).endswith("\ufffd"))
    assert whole == "也可以"
    return lm.tokenizer.encode("Say:", add_special_tokens=False), ids[:cut]


def test_an_output_cut_mid_character_is_trimmed_and_says_so(lm):
    prompt, new = cut_mid_character(lm)
    assert lm.tokenizer.decode(new).endswith("\ufffd")  # what the page printed before
    output = torch.tensor([prompt + new])
    plan = SimpleNamespace(effective={"method": "TS-Temp", "max_new_tokens": len(new)})
    result = result_of(lm, "TS-Temp", plan, torch.tensor([prompt]), output, 1.0, 2.0, MemoryReading(), 7)
    assert result.text == "也可以"
    assert "\ufffd" not in result.text
    assert result.settings["trimmed_partial_character"] == 1
    assert result.token_ids == new  # the tokens stay as generated: only the shown text is trimmed
    assert result.finish_reason == "length"
    assert "trimmed_partial_character" not in plan.effective  # the plan's own settings are not touched


def test_a_whole_output_is_not_marked(lm):
    prompt, _ = cut_mid_character(lm)
    new = lm.tokenizer.encode("也可以满意", add_special_tokens=False)
    plan = SimpleNamespace(effective={"method": "TS-Temp"})
    output = torch.tensor([prompt + new])
    result = result_of(lm, "TS-Temp", plan, torch.tensor([prompt]), output, 1.0, 2.0, MemoryReading(), 7)
    assert result.text == "也可以满意"
    assert "trimmed_partial_character" not in result.settings


def test_study_batches_trim_too(lm, monkeypatch):
    """The batched study path decodes on its own; a fake generate returns the cut ids."""
    from arena.engines.local import batching

    prompt, new = cut_mid_character(lm)

    def fake_generate(input_ids, **_):
        return torch.cat([input_ids, torch.tensor([new] * input_ids.shape[0])], dim=1)

    plan = batching.plan_for(lm, "TS-Temp", None, len(prompt), len(new), "")
    plan.custom_generate = fake_generate
    monkeypatch.setattr(batching, "plan_for", lambda *a, **k: plan)
    [row] = batching.generate_batch(lm, "TS-Temp", None, [prompt], len(new), 1)
    assert row.text == "也可以" and row.settings["trimmed_partial_character"] == 1
