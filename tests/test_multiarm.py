"""Multi-arm sampling: the batched sampler, the verifier, one prefill, a correct shared cache
through backtracks and copies, the runner contract, and the trace view's data."""

import pytest
import torch
from transformers import LogitsProcessorList, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

import decoders
from common.messages import english
from decoders.multiarm import (
    DEFAULT_ARMS,
    ArmConfig,
    MultiArmGenerator,
    MultiArmSettings,
    RowwiseSampler,
    SignalVerifier,
)

PROMPT = "The lighthouse keeper opened the door and"


def test_article_arms():
    assert [(a.name, a.temperature, a.top_k, a.top_p) for a in DEFAULT_ARMS] == [
        ("Explorer", 0.95, 0, 0.98),
        ("Stabilizer", 0.4, 10, 1.0),
        ("Verifier", 0.1, 0, 1.0),
    ]


def test_rowwise_sampler_matches_transformers_warpers_row_by_row():
    torch.manual_seed(0)
    arms = [
        ArmConfig("a", 0.95, 0, 0.98),
        ArmConfig("b", 0.4, 10, 1.0),
        ArmConfig("c", 1.3, 7, 0.6),
        ArmConfig("d", 0.7, 0, 0.5),
    ]
    logits = torch.randn(len(arms), 300) * 2.5
    warped = RowwiseSampler.for_arms(arms).warp(logits)
    for row, arm in enumerate(arms):
        chain = [TemperatureLogitsWarper(arm.temperature)]
        if arm.top_k:
            chain.append(TopKLogitsWarper(arm.top_k))
        if arm.top_p < 1.0:
            chain.append(TopPLogitsWarper(arm.top_p))
        expected = LogitsProcessorList(chain)(None, logits[row : row + 1].clone())
        assert torch.equal(torch.isinf(warped[row : row + 1]), torch.isinf(expected)), arm
        assert torch.allclose(warped[row : row + 1][~torch.isinf(expected)], expected[~torch.isinf(expected)])


def test_rowwise_sampler_temperature_override_and_draws():
    sampler = RowwiseSampler.for_arms([ArmConfig("x", 1.0, 1, 1.0), ArmConfig("y", 0.01, 0, 1.0)])
    logits = torch.tensor([[0.0, 5.0, 1.0], [3.0, 0.0, 2.9]])
    torch.manual_seed(0)
    assert sampler.sample(logits).tolist() == [1, 0]  # top-1, and T=0.01 is greedy in practice
    hot = sampler.warp(logits, torch.tensor([2.0, 2.0]))
    assert torch.allclose(hot[1], logits[1] / 2.0)


def test_signal_verifier_hand_computed_and_honest():
    v = SignalVerifier(variance_weight=0.5, entropy_weight=0.15)
    lp = torch.tensor([[-1.0, -3.0, 9.0], [-0.5, -0.5, -0.5]])
    ent = torch.tensor([[2.0, 0.0, 9.0], [1.0, 1.0, 1.0]])
    window = torch.tensor([[True, True, False], [True, True, True]])
    # row 0: var(-1, -3) = 1, mean H = 1 → exp(-(0.5 + 0.15)); row 1: var 0, H 1 → exp(-0.15)
    assert torch.allclose(v(lp, ent, window), torch.tensor([0.5220458, 0.8607080]))
    assert "not the article's trained 200M verifier" in v.describe()


class Recorder:
    """A streamer that records what it was given."""

    def __init__(self):
        self.items, self.ended = [], False

    def put(self, value):
        self.items.append(value.reshape(-1).tolist())

    def end(self):
        self.ended = True


def _ids(lm, text=PROMPT):
    return lm.tokenizer(text, return_tensors="pt")["input_ids"]


def _run(lm, settings, max_new_tokens=6, seed=0, verifier=None, streamer=None, processors=None):
    ids = _ids(lm)
    gen = MultiArmGenerator(lm.model, settings, verifier, eos_token_id=lm.tokenizer.eos_token_id)
    with torch.inference_mode():
        torch.manual_seed(seed)
        out = gen(
            ids,
            attention_mask=torch.ones_like(ids),
            logits_processor=processors,
            streamer=streamer,
            max_new_tokens=max_new_tokens,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    return ids, out, gen.last_trace


def test_prompt_is_computed_once(lm):
    """Count forward passes: exactly one sees the prompt (batch 1, full length); every other one
    is a single new token for each of the three arms."""
    calls = []
    original = lm.model.forward

    def counting(*args, **kwargs):
        calls.append(tuple(kwargs["input_ids"].shape))
        return original(*args, **kwargs)

    seen = []
    lm.model.forward = counting
    try:
        rec = Recorder()
        ids, out, trace = _run(
            lm,
            MultiArmSettings(),
            max_new_tokens=5,
            streamer=rec,
            processors=LogitsProcessorList([lambda i, s: seen.append(s.shape) or s]),
        )
    finally:
        del lm.model.forward
    prompt_len = ids.shape[1]
    assert calls[0] == (1, prompt_len)
    assert calls.count((1, prompt_len)) == 1 and all(c == (3, 1) for c in calls[1:])
    assert len(calls) == trace.forward_passes >= 5
    # the runner's processors (its first-token clock) see every step's logits, one row per arm
    assert len(seen) == len(calls) and all(s[0] == 3 for s in seen)
    # streamer: the prompt first, then the answer token by token, then end()
    assert rec.items[0] == ids[0].tolist() and rec.ended
    assert sum(rec.items[1:], []) == out[0, prompt_len:].tolist()
    assert out[0, :prompt_len].tolist() == ids[0].tolist() and 1 <= out.shape[1] - prompt_len <= 5


def _full_logprobs(lm, prompt_ids, path):
    seq = torch.tensor([prompt_ids[0].tolist() + path])
    with torch.inference_mode():
        logp = torch.log_softmax(lm.model(input_ids=seq).logits[0].float(), dim=-1)
    p = prompt_ids.shape[1]
    return logp[p - 1 : -1].gather(1, seq[0, p:, None]).squeeze(1)


@pytest.fixture(scope="module")
def forced(lm_fp32):
    """Backtracking on every chance (variance threshold 0) and a prune every 2 steps. In float32: the
    cache checks below compare against a fresh forward at 2e-3, which bf16's rounding of a batch of
    three rows against a batch of one exceeds whatever the cache does."""
    settings = MultiArmSettings(variance_threshold=0.0, anchor_threshold=0.6, realloc_every=2, prune_weight=0.34)
    return _run(lm_fp32, settings, max_new_tokens=7, seed=1)


def test_shared_cache_stays_exact_through_backtracks_and_copies(lm_fp32, forced):
    """The log-probs recorded while branching, backtracking (dead slots in the mask) and copying
    rows equal those of a fresh forward over each arm's final path."""
    ids, out, trace = forced
    assert trace.backtracks() and any(e.kind == "copy" for e in trace.events)
    for path, recorded in zip(trace.paths, trace.path_logprobs):
        assert path
        assert torch.allclose(_full_logprobs(lm_fp32, ids, path), torch.tensor(recorded), atol=2e-3)
    assert out[0, ids.shape[1] :].tolist() == trace.paths[trace.chosen]
    assert trace.chosen == max(range(3), key=lambda a: trace.mean_scores[a])


def test_backtrack_to_the_prompt_when_there_is_no_anchor(lm_fp32):
    lm = lm_fp32  # the cache check below is a float32 check (see `forced`)
    settings = MultiArmSettings(variance_threshold=0.0, anchor_threshold=1.0, realloc_every=0, max_backtracks=1)
    ids, out, trace = _run(lm, settings, max_new_tokens=5, seed=2)
    back = trace.backtracks()
    assert len(back) == 3 and all(e.position == 0 and "prompt" in e.reason for e in back)  # one per arm
    for path, recorded in zip(trace.paths, trace.path_logprobs):
        assert torch.allclose(_full_logprobs(lm, ids, path), torch.tensor(recorded), atol=2e-3)
    # after a backtrack the arm re-explores hotter
    for e in back:
        after = [s for s in trace.steps if s.arm == e.arm and s.step > e.step]
        assert after[0].temperature == pytest.approx(DEFAULT_ARMS[e.arm].temperature + 0.3)


def test_weights_are_normalised_scores_and_the_verifier_is_pluggable(lm, forced):
    _, _, trace = forced
    by_step = {}
    for s in trace.steps:
        by_step.setdefault(s.step, []).append(s)
    full = [v for v in by_step.values() if len(v) == 3]
    assert full and all(abs(sum(s.weight for s in v) - 1) < 1e-5 for v in full)
    for v in full:
        total = sum(s.score for s in v)
        assert all(s.weight == pytest.approx(s.score / total, rel=1e-4) for s in v)

    calls = []

    def constant(logprobs, entropies, window):
        calls.append(window.shape)
        return torch.full((logprobs.shape[0],), 0.9)

    _, _, flat = _run(lm, MultiArmSettings(variance_threshold=50.0), max_new_tokens=3, verifier=constant)
    assert calls and all(s.score == pytest.approx(0.9) for s in flat.steps)
    assert not flat.events  # constant scores never fall, equal weights are never pruned


def test_runner_contract(lm):
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    d = decoders.get("Multi-Arm")
    assert d.streams is False and d.stochastic
    (res,) = run_methods(lm, RunRequest(PROMPT, ["Multi-Arm"], max_new_tokens=4, seed=0, raw=True))
    assert 1 <= res.new_tokens <= 4 and 0 < res.ttft_ms < res.latency_ms
    assert "not the article's trained 200M verifier" in res.settings["verifier"]
    assert res.settings["arms"]["Explorer"] == {"temperature": 0.95, "top_k": 0, "top_p": 0.98}


def test_trace_view_data(lm, forced):
    from ui.trace import arms_frame, events_frame, run_trace, trace_figure

    _, _, trace = forced
    fig = trace_figure(trace, lm.tokenizer)
    names = [t.name for t in fig.data]
    assert sum("backtrack" in n for n in names) >= 1 and any("(answer)" in n for n in names)
    score_lines = [t for t in fig.data if t.mode == "lines+markers" and t.showlegend is not False]
    assert len(score_lines) == 3
    arms = arms_frame(trace, lm.tokenizer)
    assert list(arms["arm"]) == ["Explorer", "Stabilizer", "Verifier"] and (arms["answer"] == "yes").sum() == 1
    assert arms["backtracks"].sum() == len(trace.backtracks())
    assert len(events_frame(trace)) == len(trace.events)

    run = run_trace(lm, PROMPT, raw=True, max_new_tokens=3, seed=0)
    assert run.text and run.trace.steps and run.settings["method"] == "Multi-Arm"


def test_a_trace_is_the_runners_own_run(lm):
    """The trace tab generates through the in-process engine (warm-up, timed generation, result), so with the
    same seed it gives Compare's answer, with Compare's timing fields."""
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods
    from ui.trace import run_trace

    run = run_trace(lm, PROMPT, raw=True, max_new_tokens=4, seed=7)
    [compare] = run_methods(lm, RunRequest(PROMPT, ["Multi-Arm"], {}, 4, 7, True))
    assert run.text == compare.text and run.result["token_ids"] == compare.token_ids
    assert run.result["settings"] == compare.settings == run.settings
    assert 0 < run.result["ttft_ms"] <= run.result["latency_ms"] and run.result["finish_reason"] in ("eos", "length")


def test_trace_tab_builds_without_a_model_call():
    import gradio as gr

    from ui import AppContext, trace

    def no_model():
        raise AssertionError("building the tab must not load or use the model")

    with gr.Blocks() as demo:
        trace.build(AppContext(model=no_model))
    assert any(getattr(fn, "api_name", None) == "multiarm_trace" for fn in demo.fns.values())
    assert "not** the article's trained 200M verifier" in english("trace_intro")
