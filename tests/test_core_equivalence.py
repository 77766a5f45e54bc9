"""Our decoders produce exactly transformers' tokens where transformers implements the method."""

import pytest
import torch
from transformers import LogitsProcessor, LogitsProcessorList

import decoders
from arena.engines.local.device import device_generate_kwargs
from arena.engines.local.inputs import encode
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods
from decoders.priors import build_prior

PROMPT = "Explain the basic principles of quantum computing."
N = 12


def bare_generate(lm, input_ids, seed=None, **kwargs):
    # "The same settings" includes the device's: on CUDA the runner decodes with a static KV cache
    # (the compiled step comes only from the background warm-up, arena/engines/local/compiled.py, never
    # from generate itself), so bare generate does too; on CPU this adds nothing.
    kwargs = {**device_generate_kwargs(lm.device), **kwargs}
    with torch.inference_mode():
        if seed is not None:
            torch.manual_seed(seed)
        out = lm.model.generate(
            input_ids=input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=N, **kwargs
        )
    new = out[0, input_ids.shape[1] :].tolist()
    eos = lm.tokenizer.eos_token_id
    return new[: new.index(eos) + 1] if eos in new else new


def ours(lm, method, seed, settings=None, raw=False):
    req = RunRequest(PROMPT, [method], {method: settings} if settings else {}, N, seed, raw)
    (result,) = run_methods(lm, req)
    return result


def test_bs4_matches_transformers_beam_search(lm):
    req = RunRequest(PROMPT, ["BS-4"], {}, N, 0)
    ids = encode(lm, req)
    expected = bare_generate(lm, ids, num_beams=4, length_penalty=1.0, early_stopping=True, no_repeat_ngram_size=3)
    assert ours(lm, "BS-4", 0).token_ids == expected


@pytest.mark.parametrize("seed", [0, 7, 1234])
def test_ts_temp_matches_seeded_transformers_sampling(lm, seed):
    ids = encode(lm, RunRequest(PROMPT, ["TS-Temp"], {}, N, seed))
    # Exactly the article's call: top_k is left to generate's default, which TS-Temp shows as 50.
    expected = bare_generate(lm, ids, seed=seed, do_sample=True, temperature=0.9, top_p=0.95)
    result = ours(lm, "TS-Temp", seed)
    assert result.token_ids == expected
    assert result.settings["top_k"] == 50 and result.settings["temperature"] == 0.9


@pytest.mark.parametrize("seed", [0, 42])
def test_tilted_with_zero_lambda_is_ts_temp(lm, seed):
    tilted = ours(lm, "TS-Tilted", seed, {"alpha": 0.0, "temperature": 0.9, "top_p": 0.95, "top_k": 50})
    assert tilted.token_ids == ours(lm, "TS-Temp", seed).token_ids


class FusedTilt(LogitsProcessor):
    """TS-Tilted's processor before the tilt became a bias: logits/T − λS in one step, used with
    generate(temperature=1)."""

    def __init__(self, temperature: float, alpha: float, prior: torch.Tensor):
        self.temperature, self.alpha, self.prior = temperature, alpha, prior.float()

    def __call__(self, input_ids, scores):
        return scores / self.temperature - self.alpha * self.prior


@pytest.mark.parametrize(
    "seed, settings",
    [
        (0, {}),
        (7, {"alpha": 1.0}),
        (42, {"prior": "common-tokens", "alpha": 0.5, "top_p": 0.9}),
        (3, {"temperature": 1.2, "alpha": 0.3, "top_k": 0}),
    ],
)
def test_tilted_gives_the_tokens_of_the_fused_tilt(lm, seed, settings):
    """The bias before generate's own temperature samples the same tokens as the fused processor
    it replaced (same seed, same settings); the two differ by float rounding only."""
    s = decoders.get("TS-Tilted").resolve(settings)
    prior = build_prior(lm.tokenizer, s["prior"], lm.logits_size, lm.device, lm.cache_dir)
    ids = encode(lm, RunRequest(PROMPT, ["TS-Tilted"], {}, N, seed))
    fused = LogitsProcessorList([FusedTilt(s["temperature"], s["alpha"], prior)])
    expected = bare_generate(
        lm, ids, seed=seed, do_sample=True, temperature=1.0, top_p=s["top_p"], top_k=s["top_k"], logits_processor=fused
    )
    assert ours(lm, "TS-Tilted", seed, settings).token_ids == expected


def test_tilt_changes_tokens_when_lambda_is_large(lm):
    # Guards the test above from passing because the tilt is never applied.
    plain = ours(lm, "TS-Tilted", 3, {"alpha": 0.0})
    tilted = ours(lm, "TS-Tilted", 3, {"alpha": 1.5})
    assert plain.token_ids != tilted.token_ids


def test_same_seed_same_text_and_different_seed_differs(lm):
    a, b, c = ours(lm, "TS-Temp", 5), ours(lm, "TS-Temp", 5), ours(lm, "TS-Temp", 6)
    assert a.token_ids == b.token_ids
    assert a.token_ids != c.token_ids


def test_raw_mode_skips_chat_template(lm):
    chat = encode(lm, RunRequest("In the port, I walked", ["BS-4"], {}, N, 0, raw=False))
    raw = encode(lm, RunRequest("In the port, I walked", ["BS-4"], {}, N, 0, raw=True))
    assert raw.shape[1] < chat.shape[1]
    assert lm.tokenizer.decode(raw[0]).endswith("In the port, I walked")
