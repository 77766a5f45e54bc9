"""The vLLM engine against a real vLLM CPU server (started by scripts/services/vllm.sh).

When the service script ran (ARENA_TEST_VLLM=1) and the server did not come up, these tests FAIL
with the script's reason; they skip only when the script was switched off (ARENA_VLLM_SERVICE=0)
or pytest runs outside scripts/test.sh. Few tokens each: the server shares two CPU cores.
"""

from __future__ import annotations

import json
import os
import time

import pytest
import torch
from transformers import TemperatureLogitsWarper

from arena import studies
from arena.engines.local.inputs import encode_ids
from arena.rating.study_spec import StudySpec
from arena.runs.requests import RunRequest
from arena.store import Store
from common.errors import UserError
from decoders.priors import build_prior
from decoders.processors import TiltedLogitsProcessor

PROMPT = "Explain the basic principles of quantum computing."


def _translate_only():
    from arena.engines.vllm import plan_on_engine, translate

    return plan_on_engine, translate


@pytest.fixture(scope="module")
def vllm_url() -> str:
    url = os.environ.get("ARENA_TEST_VLLM_URL")
    if url:
        return url
    if os.environ.get("ARENA_TEST_VLLM"):
        pytest.fail(
            "the vLLM server for the engine tests is not running: "
            + os.environ.get("ARENA_TEST_VLLM_ERROR", "no reason given (see scripts/services/vllm.sh)")
        )
    pytest.skip(
        "no vLLM server: run through `bash scripts/test.sh` (scripts/services/vllm.sh starts one), "
        "or set ARENA_TEST_VLLM_URL"
    )


@pytest.fixture(scope="module")
def client_lm():
    """The app's side with ARENA_ENGINE=vllm: tokenizer, no weights."""
    from arena.model.llm import tokenizer_only_model

    return tokenizer_only_model()


@pytest.fixture(scope="module")
def engine(vllm_url):
    from arena.engines.vllm import VllmEngine

    return VllmEngine(vllm_url)


@pytest.fixture(scope="module")
def hf_float32(client_lm):
    """The same converted folder the server loads, in float32 in this process, for the reference."""
    from transformers import AutoModelForCausalLM

    from arena.model.llm import materialize

    model = AutoModelForCausalLM.from_pretrained(materialize(), dtype=torch.float32).eval()
    return model


# ---- mapping, no server needed -----------------------------------------------------------------


def test_methods_map_to_server_parameters_or_are_refused(client_lm):
    plan_on_engine, translate = _translate_only()

    def body(method, overrides=None):
        plan = plan_on_engine(client_lm, method, overrides, 5, 8, PROMPT)
        return translate(method, plan)

    temp, eff, beam = body("TS-Temp")
    assert (temp["temperature"], temp["top_p"], temp["top_k"], beam) == (0.9, 0.95, 50, False)
    tilt, eff, _ = body("TS-Tilted", {"alpha": 0.3, "prior": "common-tokens"})
    assert tilt["temperature"] == 0.8 and tilt["top_k"] == 50 and tilt["top_p"] == 1.0
    assert tilt["vllm_xargs"] == {"arena_tilt_alpha": 0.3, "arena_tilt_prior": "common-tokens"}
    assert eff["alpha"] == 0.3 and eff["temperature"] == 0.8
    ngram, _, _ = body("N-gram-Block")
    assert ngram["vllm_xargs"] == {"arena_no_repeat_ngram_size": 3}
    greedy, _, _ = body("Greedy")
    assert greedy["temperature"] == 0.0
    minp, _, _ = body("Min-p")
    assert (minp["min_p"], minp["top_k"], minp["top_p"]) == (0.1, 0, 1.0)
    rep, _, _ = body("Repetition-Penalty")
    assert rep["repetition_penalty"] == 1.2
    beam_body, beam_eff, beam = body("BS-4", {"no_repeat_ngram_size": 0, "length_penalty": 0.8})
    assert beam and beam_body["use_beam_search"] and beam_body["n"] == 4 and beam_body["length_penalty"] == 0.8
    assert "n/a" in beam_eff["early_stopping"]
    for method, overrides, why in [
        ("BS-4", None, "no n-gram blocking"),
        ("Multi-Arm", None, "drives the model itself"),
        ("Typical-p", None, "typical_p"),
        ("TS-Warmup", None, "has no counterpart"),
        ("TS-Decay", None, "has no counterpart"),
        ("Dual-Threshold", None, "has no counterpart"),
        ("TS-Tilted-Adaptive", None, "has no counterpart"),
    ]:
        with pytest.raises(UserError, match=why):
            body(method, overrides)


def test_engine_setting_is_validated(monkeypatch):
    from arena import engines

    monkeypatch.delenv("ARENA_ENGINE", raising=False)
    assert isinstance(engines.current(), engines.LocalEngine)  # the default: in-process transformers, no server
    monkeypatch.setenv("ARENA_ENGINE", "tgi")
    with pytest.raises(UserError, match="ARENA_ENGINE"):
        engines.current()
    monkeypatch.setenv("ARENA_ENGINE", "vllm")
    monkeypatch.setenv("ARENA_VLLM_URL", "http://127.0.0.1:9/")
    eng = engines.current()
    assert isinstance(eng, engines.VllmEngine) and eng.client.url == "http://127.0.0.1:9"
    with pytest.raises(UserError, match="does not answer"):
        eng.client.info()


# ---- the tilt on the server ----------------------------------------------------------------------


def _server_first_step(engine, ids, temperature, alpha, prior, token_ids):
    """The server's first-step log-probs (after the tilt, temperature, top-k/top-p: the server runs
    with --logprobs-mode processed_logprobs) for `token_ids`."""
    body = {
        "model": engine.client.info().model,
        "prompt": ids,
        "max_tokens": 1,
        "temperature": temperature,
        "top_k": 0,
        "top_p": 1.0,
        "min_p": 0.0,
        "logprobs": 1,
        "logprob_token_ids": token_ids,
        "return_tokens_as_token_ids": True,
        "seed": 0,
    }
    if alpha is not None:
        body["vllm_xargs"] = {"arena_tilt_alpha": alpha, "arena_tilt_prior": prior}
    response = engine.client.http.post("/v1/completions", json=body)
    assert response.status_code == 200, response.text
    top = response.json()["choices"][0]["logprobs"]["top_logprobs"][0]
    return {int(key.split(":", 1)[1]): value for key, value in top.items()}


@pytest.mark.parametrize("prior, alpha", [("wordfreq", 0.15), ("wordfreq", 1.0), ("common-tokens", 0.5)])
def test_tilt_first_step_distribution_matches_transformers(engine, client_lm, hf_float32, prior, alpha):
    """Server: (logits − λ·T·S)/T inside vLLM (our processor, then vLLM's temperature). Here: the
    same chain in transformers (our tilt bias, then the stock TemperatureLogitsWarper). Same model
    folder, float32 on both sides. Compared on up to 120 tokens: the 40 most probable with and without the tilt, and the 40 most probable of
    those the prior touches (S ≠ 0)."""
    from arena.inputs.prompts import encode_prompt

    temperature = 0.8
    ids = encode_prompt(client_lm.tokenizer, PROMPT, False, "cpu", 2048, 8)
    with torch.inference_mode():
        logits = hf_float32(ids).logits[:, -1, :].float()
    S = build_prior(client_lm.tokenizer, prior, logits.shape[-1], "cpu", client_lm.cache_dir)
    tilted = TemperatureLogitsWarper(temperature)(ids, TiltedLogitsProcessor(temperature, alpha, S)(ids, logits))
    ours = torch.log_softmax(tilted[0], dim=-1)
    plain = torch.log_softmax(logits[0] / temperature, dim=-1)
    touched = torch.where(S != 0, plain, torch.full_like(plain, -float("inf")))
    check = sorted(
        set(torch.topk(ours, 40).indices.tolist())
        | set(torch.topk(plain, 40).indices.tolist())
        | set(torch.topk(touched, 40).indices.tolist())
    )
    server = _server_first_step(engine, ids[0].tolist(), temperature, alpha, prior, check)
    assert set(check) <= set(server)
    got = torch.tensor([server[t] for t in check])
    want = ours[check]
    assert torch.allclose(got, want, atol=2e-3), (got - want).abs().max()
    # the check has teeth: without the tilt the same tokens are far off
    assert (plain[check] - want).abs().max() > 0.1


def test_greedy_and_ngram_blocking_match_transformers(engine, client_lm, hf_float32):
    """Deterministic methods give transformers' tokens on the server: Greedy, and greedy with
    no_repeat_ngram_size=3 (Routed's chat preset with greedy_chat=true), which runs in our
    ArenaNoRepeatNGram processor on the server. The prompt invites repetition, so blocking matters."""
    from arena.inputs.prompts import encode_prompt

    prompt = "one two three, one two three, one two three, one two three,"
    ids = encode_prompt(client_lm.tokenizer, prompt, True, "cpu", 2048, 8)
    routed = {"task": "chat", "greedy_chat": True}
    req = RunRequest(prompt, ["Greedy", "Routed"], {"Routed": routed}, max_new_tokens=8, seed=0, raw=True)
    greedy, blocked = engine.run_methods(client_lm, req)
    assert blocked.settings["server_request"]["vllm_xargs"] == {"arena_no_repeat_ngram_size": 3}
    with torch.inference_mode():
        ref_greedy = hf_float32.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=8,
            pad_token_id=client_lm.tokenizer.pad_token_id,
        )[0, ids.shape[1] :].tolist()
        ref_blocked = hf_float32.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=8,
            no_repeat_ngram_size=3,
            pad_token_id=client_lm.tokenizer.pad_token_id,
        )[0, ids.shape[1] :].tolist()
    assert greedy.token_ids == ref_greedy
    assert blocked.token_ids == ref_blocked
    assert ref_blocked != ref_greedy


def test_lambda_zero_tilted_equals_temp_on_the_engine(engine, client_lm):
    common = {"temperature": 0.8, "top_p": 0.9, "top_k": 50}
    req = RunRequest(
        PROMPT,
        ["TS-Temp", "TS-Tilted"],
        {"TS-Temp": common, "TS-Tilted": {**common, "alpha": 0.0}},
        max_new_tokens=12,
        seed=7,
    )
    temp, tilted = engine.run_methods(client_lm, req)
    assert temp.token_ids == tilted.token_ids and temp.text == tilted.text
    assert tilted.settings["alpha"] == 0.0 and tilted.settings["engine"]["name"] == "vllm"


def test_the_concise_instruction_alone_is_exact_on_the_engine_and_its_penalty_refused(engine, client_lm):
    """TS-Tilted-Concise with phrase_penalty=0 is TS-Tilted's request on the prompt ids with the
    instruction (encoded on this side); with the penalty it is refused before anything is sent."""
    name = "TS-Tilted-Concise"
    req = RunRequest(PROMPT, ["TS-Tilted", name], {name: {"phrase_penalty": 0}}, max_new_tokens=10, seed=3)
    tilted, concise = engine.run_methods(client_lm, req)
    ids = encode_ids(client_lm, req, name)
    assert concise.prompt_tokens == len(ids) > tilted.prompt_tokens
    assert concise.settings["instruction_text"] == "Use concise language."
    as_tilted = engine.client.execute(
        client_lm, engine.client.prepare(client_lm, "TS-Tilted", None, ids, 10, 3), ids, 3
    )
    assert concise.token_ids == as_tilted.token_ids
    with pytest.raises(UserError, match="no sequence bias"):
        list(engine.stream_methods(client_lm, RunRequest(PROMPT, ["TS-Temp", name], max_new_tokens=4, seed=0)))


# ---- Compare and a study through the server ---------------------------------------------------------


def test_compare_streams_from_the_server(engine, client_lm):
    req = RunRequest(
        PROMPT,
        ["TS-Temp", "TS-Tilted", "N-gram-Block", "BS-4"],
        {"BS-4": {"no_repeat_ngram_size": 0}},
        max_new_tokens=10,
        seed=1,
    )
    events = list(engine.stream_methods(client_lm, req, interval_s=0.01))
    results = [e.result for e in events if e.result is not None]
    assert [r.method for r in results] == req.methods
    partial = [e for e in events if e.result is None]
    assert {e.method for e in partial} >= {"TS-Temp"}  # sampling methods arrive token by token
    for r in results:
        assert r.text and 1 <= r.new_tokens <= 10
        assert 0 < r.ttft_ms <= r.latency_ms
        assert r.settings["engine"] == engine.client.engine_settings() and r.settings["max_new_tokens"] == 10
        assert r.settings["timing"]["measured"].startswith("on the client")
        if r.method != "BS-4":
            assert r.ttft_ms < r.latency_ms and r.settings["server_metrics"]["time_to_first_token_ms"] > 0
    beam = results[-1]
    assert beam.settings["server_request"]["use_beam_search"] is True and beam.ttft_ms == beam.latency_ms
    # n-gram blocking ran on the server: no generated token completes a 3-gram seen before it in
    # prompt + output (the chat template itself repeats some 3-grams; those are the prompt's)
    from arena.inputs.prompts import encode_prompt

    prompt_ids = encode_prompt(client_lm.tokenizer, PROMPT, False, "cpu", 2048, 10)[0].tolist()
    seq = prompt_ids + results[2].token_ids
    for end in range(len(prompt_ids), len(seq)):
        earlier = {tuple(seq[i : i + 3]) for i in range(end - 2)}
        assert tuple(seq[end - 2 : end + 1]) not in earlier


def test_methods_needing_our_processors_are_refused_by_a_server_without_them(engine, client_lm):
    """A server started without --logits-processors would accept vllm_xargs and ignore them
    (TS-Tilted silently = TS-Temp); the engine asks the server which processors it runs."""
    from arena.engines.vllm import VllmClient

    bare = VllmClient(engine.client.url)
    info = bare.info()
    assert info.processors == {"ArenaTilt", "ArenaNoRepeatNGram"}  # the real probe, on our server
    info.processors = set()  # what the probe finds on a server without them
    with pytest.raises(UserError, match="--logits-processors serving.vllm_arena:ArenaTilt"):
        bare.prepare(client_lm, "TS-Tilted", None, [1, 2, 3], 4, 0)
    with pytest.raises(UserError, match="ArenaNoRepeatNGram"):
        bare.prepare(client_lm, "N-gram-Block", None, [1, 2, 3], 4, 0)
    assert bare.prepare(client_lm, "TS-Temp", None, [1, 2, 3], 4, 0).body["temperature"] == 0.9
    assert bare.prepare(client_lm, "TS-Tilted", {"alpha": 0.0}, [1, 2, 3], 4, 0)  # λ=0 needs no processor


def test_refused_method_sends_nothing(engine, client_lm):
    req = RunRequest(PROMPT, ["TS-Temp", "Multi-Arm"], max_new_tokens=4, seed=0)
    with pytest.raises(UserError, match="Multi-Arm cannot run on the vLLM engine"):
        list(engine.stream_methods(client_lm, req))


def test_study_is_generated_concurrently_on_the_server(engine, client_lm, tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        prompts = [
            studies.PromptSpec("Name three colours."),
            studies.PromptSpec("Say hello in French."),
            studies.PromptSpec("In that forgotten port, I walked", raw=True),
        ]
        study_id = studies.create_study(
            store,
            StudySpec(
                "engine study",
                prompts,
                methods=["TS-Temp", "TS-Tilted"],
                samples_per_method=2,
                max_new_tokens=8,
                base_seed=3,
            ),
        )
        seen = []
        started = time.perf_counter()
        report = studies.generate_study(
            store, client_lm, study_id, progress=lambda d, t, what: seen.append((d, t)), engine=engine
        )
        wall_ms = (time.perf_counter() - started) * 1000
        assert (report.total, report.generated, report.complete) == (12, 12, True)
        assert seen[-1] == (12, 12)
        outputs = [o for item in store.items(study_id) for o in store.outputs_for_item(item.id)]
        assert len(outputs) == 12
        for o in outputs:
            settings = json.loads(o.settings) if isinstance(o.settings, str) else o.settings
            assert settings["engine"]["name"] == "vllm" and "vLLM" in o.model
            item = next(i for i in store.items(study_id) if i.id == o.item_id)
            # the seed the in-process engine gives this slot: the study's, whatever the engine
            assert o.seed == studies.derive_seed(
                store.get_study(study_id).base_seed, item.public_id, o.method, o.sample_index
            )
            assert o.text
        # all twelve were in flight together: the run took far less than the sum of their latencies
        assert wall_ms < 0.6 * sum(o.latency_ms for o in outputs)
        # resumable as before: nothing left, nothing duplicated
        again = studies.generate_study(store, client_lm, study_id, engine=engine)
        assert (again.existing, again.generated) == (12, 0)
        # a study with a method the engine cannot run is refused before any request
        bad = studies.create_study(store, StudySpec("engine study two", prompts[:1], methods=["BS-4", "TS-Temp"]))
        with pytest.raises(UserError, match="n-gram"):
            studies.generate_study(store, client_lm, bad, engine=engine)
        assert store.output_slots(bad) == set()
    finally:
        store.dispose()


def test_the_app_paths_go_to_the_engine(monkeypatch, vllm_url, client_lm, tmp_path):
    """With ARENA_ENGINE=vllm the runner (Compare, CLI) and study generation use the server: the
    tokenizer-only model here has no weights, so nothing can have run in process."""
    from arena.runs import runner

    monkeypatch.setenv("ARENA_ENGINE", "vllm")
    monkeypatch.setenv("ARENA_VLLM_URL", vllm_url)
    assert client_lm.model is None
    [result] = runner.run_methods(client_lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=3, seed=1))
    assert result.settings["engine"]["name"] == "vllm" and result.new_tokens >= 1
    events = list(runner.stream_methods(client_lm, RunRequest(PROMPT, ["TS-Tilted"], max_new_tokens=3, seed=1)))
    assert events[-1].result is not None and events[-1].result.settings["engine"]["url"] == vllm_url
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    try:
        sid = studies.create_study(
            store,
            StudySpec(
                "engine hook study", [studies.PromptSpec("Say hi.")], methods=["TS-Temp", "Greedy"], max_new_tokens=3
            ),
        )
        report = studies.generate_study(store, client_lm, sid)
        assert report.complete and report.generated == 2
    finally:
        store.dispose()
