"""Article 003's per-task decoders: the length-aware processor (formula, rows, dtype, the same tokens
as transformers where it is a constant temperature), Code-Stabilizer (transformers' own pieces, the
same tokens as bare `generate`), Math-Arms (the article's arms, its trigger and check on the real
tokenizer, the multi-arm hooks)."""

from __future__ import annotations

import pytest
import torch
from transformers import LogitsProcessorList, TemperatureLogitsWarper

import decoders
from arena.engines.local.inputs import plan_for
from decoders.methods.code_stabilizer import ARTICLE_BLOCKED
from decoders.methods.math_arms import CutFaceCheck, SumTrigger
from decoders.processors import LengthAwareTemperatureLogitsWarper
from decoders.token_lengths import char_lengths, lead_bytes, piece_bytes

# -- the length-aware processor -------------------------------------------------------------------


def test_length_aware_hand_computed_start_middle_limit_and_beyond():
    lengths = torch.tensor([0.0, 1.0, 2.0, 5.0])
    w = LengthAwareTemperatureLogitsWarper(0.75, 0.45, length_limit=10, prompt_length=2, token_lengths=lengths)
    ids = torch.tensor([[3, 3], [3, 3], [0, 0], [9, 9]])  # prompt tokens never count, whatever their length
    assert torch.allclose(w.temperatures(ids[:, :2]), torch.full((4,), 0.75))
    rows = torch.tensor([[3, 3, 1, 1], [3, 3, 3, 3], [0, 0, 3, 3], [9, 9, 3, 2]])  # 2, 10, 10, 7 characters
    expected = torch.tensor([0.75 - 0.3 * 0.2, 0.45, 0.45, 0.75 - 0.3 * 0.7])
    assert torch.allclose(w.temperatures(rows), expected)
    beyond = torch.tensor([[3, 3, 3, 3, 3, 3]])  # 20 characters: T stays at T_end
    assert torch.allclose(w.temperatures(beyond), torch.tensor([0.45]))
    scores = torch.randn(4, 7)
    assert torch.allclose(w(rows, scores), scores / expected[:, None])


def test_length_aware_gamma_and_token_unit():
    w = LengthAwareTemperatureLogitsWarper(1.0, 0.5, length_limit=4, prompt_length=1, gamma=2.0)
    ids = torch.tensor([[7, 1, 2]])  # 2 of 4 tokens: T = 0.5 + 0.5·0.5² = 0.625
    assert torch.allclose(w.temperatures(ids), torch.tensor([0.625]))
    assert w.token_lengths is None and w.lengths(ids).tolist() == [2.0]


def test_length_aware_ids_beyond_the_table_add_nothing():
    w = LengthAwareTemperatureLogitsWarper(0.8, 0.4, 4, 0, token_lengths=torch.ones(3))
    assert w.lengths(torch.tensor([[0, 1, 50, 99]])).tolist() == [2.0]


def test_length_aware_refuses_bad_settings():
    for args in ((0.0, 0.4, 10, 0), (0.7, -1.0, 10, 0), (0.7, 0.4, 0, 0)):
        with pytest.raises(ValueError):
            LengthAwareTemperatureLogitsWarper(*args)
    with pytest.raises(ValueError):
        LengthAwareTemperatureLogitsWarper(0.7, 0.4, 10, 0, gamma=-1.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_length_aware_constant_is_transformers_temperature_bit_for_bit(dtype):
    torch.manual_seed(0)
    scores = (torch.randn(3, 50) * 5).to(dtype)
    ids = torch.randint(0, 50, (3, 9))
    ours = LengthAwareTemperatureLogitsWarper(0.6, 0.6, 20, 4, token_lengths=torch.rand(50) * 3)(ids, scores)
    theirs = TemperatureLogitsWarper(0.6)(ids, scores)
    assert ours.dtype == dtype and torch.equal(ours, theirs)


def test_character_lengths_add_up_to_the_decoded_text(lm):
    table = char_lengths(lm.tokenizer, lm.logits_size)
    assert table.shape == (lm.logits_size,) and char_lengths(lm.tokenizer, lm.logits_size) is table  # built once
    for text in (
        "半个圆柱体的表面积约为 105.40 cm²。",
        "  def f(lst):\n\treturn [i for i, x in enumerate(lst)]",
        "Ünïcødé ≈ π",
    ):
        ids = lm.tokenizer(text, add_special_tokens=False)["input_ids"]
        assert int(table[ids].sum()) == len(lm.tokenizer.decode(ids)), text
    assert table[lm.tokenizer.eos_token_id] == 0  # special tokens are not text
    assert piece_bytes("<0xE4>") == b"\xe4" and piece_bytes("▁the") == b" the" and lead_bytes("面".encode()) == 1


def test_length_aware_samples_like_plain_temperature_when_constant(lm):
    """T_start = T_end: the same tokens as bare generate(temperature=T) with the same seed."""
    ids = lm.tokenizer("Summarize: the trial saved water.", return_tensors="pt")["input_ids"]
    kwargs = dict(input_ids=ids, attention_mask=torch.ones_like(ids), pad_token_id=lm.tokenizer.pad_token_id)
    plan = plan_for(lm, "Length-Aware", {"t_start": 0.6, "t_end": 0.6}, ids.shape[1], 10)
    with torch.inference_mode():
        torch.manual_seed(5)
        bare = lm.model.generate(**kwargs, do_sample=True, temperature=0.6, top_k=0, top_p=1.0, max_new_tokens=10)
        torch.manual_seed(5)
        ours = lm.model.generate(
            **kwargs, logits_processor=LogitsProcessorList(plan.logits_processors), **plan.generate_kwargs
        )
    assert ours.tolist() == bare.tolist()


def test_length_aware_plan_shows_what_runs(lm):
    plan = plan_for(lm, "Length-Aware", None, 12, 64)
    w = plan.logits_processors[0]
    assert isinstance(w, LengthAwareTemperatureLogitsWarper) and (w.t_start, w.t_end, w.length_limit) == (
        0.75,
        0.45,
        200,
    )
    assert w.prompt_length == 12 and w.token_lengths is not None
    assert plan.generate_kwargs == {
        "do_sample": True,
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 0,
        "max_new_tokens": 64,
    }
    assert "200 characters" in plan.effective["temperature"] and plan.effective["limit_enforced"].startswith("no")
    assert plan_for(lm, "Length-Aware", {"unit": "tokens"}, 12, 64).logits_processors[0].token_lengths is None


# -- Code-Stabilizer ------------------------------------------------------------------------------


def test_code_stabilizer_is_transformers_sampling_with_the_article_block(lm):
    plan = plan_for(lm, "Code-Stabilizer", None, 5, 32)
    kw = plan.generate_kwargs
    assert (kw["temperature"], kw["top_k"], kw["top_p"], kw["do_sample"]) == (0.25, 15, 1.0, True)
    tokens = [lm.tokenizer.convert_ids_to_tokens(seq) for seq in kw["bad_words_ids"]]
    assert ["for", "Ġi", "Ġin", "Ġrange"] in tokens and ["Ġfor", "Ġi", "Ġin", "Ġrange"] in tokens
    assert "no_repeat_ngram_size" not in kw and plan.effective["blocked_phrases"] == [ARTICLE_BLOCKED]
    assert plan.effective["top_k"] == 15 and plan.effective["arms"].startswith("Stabilizer only")
    off = plan_for(lm, "Code-Stabilizer", {"block_ngram": False, "no_repeat_ngram_size": 4}, 5, 32).generate_kwargs
    assert "bad_words_ids" not in off and off["no_repeat_ngram_size"] == 4


def test_code_stabilizer_gives_generates_tokens_and_never_writes_the_blocked_phrase(lm):
    prompt = "Complete the Python loop over the list:\ndef show(lst):\n    for i in range"
    ids = lm.tokenizer(prompt, return_tensors="pt")["input_ids"]
    kwargs = dict(input_ids=ids, attention_mask=torch.ones_like(ids), pad_token_id=lm.tokenizer.pad_token_id)
    plan = plan_for(lm, "Code-Stabilizer", None, ids.shape[1], 24)
    with torch.inference_mode():
        torch.manual_seed(11)
        ours = lm.model.generate(**kwargs, **plan.generate_kwargs)
        torch.manual_seed(11)
        bare = lm.model.generate(
            **kwargs,
            do_sample=True,
            temperature=0.25,
            top_k=15,
            top_p=1.0,
            max_new_tokens=24,
            bad_words_ids=plan.generate_kwargs["bad_words_ids"],
        )
    assert ours.tolist() == bare.tolist()
    new = lm.tokenizer.decode(ours[0, ids.shape[1] :])
    assert ARTICLE_BLOCKED not in new


# -- Math-Arms ------------------------------------------------------------------------------------


def test_math_arms_article_arms_and_hooks(lm):
    plan = plan_for(lm, "Math-Arms", None, 8, 16)
    arms = plan.effective["arms"]
    assert arms == {
        "Explorer": {"temperature": 0.92, "top_k": 0, "top_p": 0.96},
        "Stabilizer": {"temperature": 0.35, "top_k": 12, "top_p": 1.0},
    }
    gen = plan.custom_generate
    assert isinstance(gen.trigger, SumTrigger) and isinstance(gen.prefer, CutFaceCheck)
    assert "表面积=" in plan.effective["backtrack"] and "cut face" in plan.effective["answer"]
    bare = plan_for(lm, "Math-Arms", {"sum_trigger": False, "prefer_cut_face": False}, 8, 16).custom_generate
    assert bare.trigger is None and bare.prefer is None
    assert not decoders.get("Math-Arms").streams


def test_sum_trigger_fires_only_two_tokens_after_the_marker_without_a_sign(lm):
    tok = lm.tokenizer
    trigger = SumTrigger(tok)

    def path(text: str) -> list[int]:
        return tok(text, add_special_tokens=False)["input_ids"]

    marker = path("所以表面积=")
    assert trigger.reason(marker + path("π")[:1] + path("r")[:1]) is not None  # 2 tokens, neither '+' nor '='
    assert trigger.reason(marker + path("+3")[:2]) is None
    assert trigger.reason(marker + path("π")) is None  # only one token after the marker so far
    assert trigger.reason(path("The surface area is 9 and 15")) is None
    assert trigger([marker + path("π")[:1] + path("r")[:1], path("no marker here")])[1] is None

    def fired(text: str) -> list[str]:
        ids = path(text)
        return [tok.decode(ids[:i]) for i in range(1, len(ids) + 1) if trigger.reason(ids[:i])]

    # Taken literally, the article's rule fires once on a *right* sum: digits are tokens of their own.
    assert fired("The surface area = 9π + 15π + 30") == ["The surface area = 9"]
    assert fired("表面积 = 9π + 15π + 30") == ["表面积 = 9"]


def test_cut_face_check_reads_words_not_numbers(lm):
    check = CutFaceCheck(lm.tokenizer)
    texts = ["切面是一个矩形，面积 2rh = 30", "the rectangle from the cut adds 2 × 3 × 5", "底面积 + 侧面积 = 122.46"]
    assert check([lm.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]) == [True, True, False]


class _Cycle:
    """A verifier that scores arm 0 highest, so a `prefer` hook is what changes the answer."""

    def __call__(self, logprobs, entropies, window):
        return torch.tensor([0.9, 0.5])[: logprobs.shape[0]]


def test_multiarm_hooks_prefer_and_trigger_through_the_generator(lm):
    from decoders.multiarm import ArmConfig, MultiArmGenerator, MultiArmSettings

    ids = lm.tokenizer("Count: one, two,", return_tensors="pt")["input_ids"]
    cfg = MultiArmSettings(arms=(ArmConfig("A", 0.9, 0, 1.0), ArmConfig("B", 0.9, 0, 1.0)), realloc_every=0)
    seen: list[int] = []

    def trigger(paths):
        seen.append(len(paths))
        return ["hook says so" if len(p) == 3 else None for p in paths]

    gen = MultiArmGenerator(
        lm.model, cfg, _Cycle(), lm.tokenizer.eos_token_id, trigger=trigger, prefer=lambda ps: [False, True]
    )
    with torch.inference_mode():
        torch.manual_seed(0)
        out = gen(ids, attention_mask=torch.ones_like(ids), max_new_tokens=6, pad_token_id=lm.tokenizer.pad_token_id)
    trace = gen.last_trace
    assert seen and set(seen) == {2}
    assert any("hook says so" in e.reason for e in trace.backtracks())
    assert trace.passed == [False, True] and trace.chosen == 1  # the check beats the higher score
    assert out[0, ids.shape[1] :].tolist() == trace.paths[1]


def test_the_task_decoders_are_refused_on_the_vllm_engine_not_approximated(lm):
    from arena.engines.vllm import plan_on_engine, translate
    from common.errors import UserError

    for method, why in (
        ("Math-Arms", "drives the model itself"),
        ("Code-Stabilizer", "bad_words_ids has no exact counterpart"),
        ("Length-Aware", r"LengthAwareTemperatureLogitsWarper\) has no counterpart"),
    ):
        with pytest.raises(UserError, match=why):
            translate(method, plan_on_engine(lm, method, None, 5, 8, "Write a function."))
