"""top-nσ, XTC, DRY and Mirostat-v2 against llama.cpp's own samplers, recorded by
tests/data/sampler_refs/make_refs.py (llama-cpp-python 0.3.36's ctypes API on the same logits); these
tests need no llama.cpp. Edge cases: all logits equal, one token left, end of sequence on top, half the
vocabulary masked, Gemma's 262,144-token vocabulary."""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from decoders.samplers import DRYLogitsProcessor, MirostatV2LogitsWarper, TopNSigmaLogitsWarper, XTCLogitsWarper

REFS = json.loads((Path(__file__).parent / "data" / "sampler_refs" / "sampler_refs.json").read_text())
EOS = 2


def logits_for(recipe: str, vocab: int, seed: int) -> np.ndarray:
    """The fixture script's recipes, rebuilt (the stored checksum says they are the same vectors)."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(vocab) * 2.0).astype(np.float32)
    if recipe == "peaked":
        x[rng.choice(vocab, 8, replace=False)] += np.float32(9.0)
    elif recipe == "equal":
        x[:] = 0.0
    elif recipe == "one-left":
        x[:] = -np.inf
        x[int(rng.integers(vocab))] = 1.5
    elif recipe == "masked":
        x[rng.random(vocab) < 0.5] = -np.inf
        x[rng.choice(vocab, 6, replace=False)] = np.float32(12.0)
    elif recipe == "eos-top":
        x[EOS] = 14.0
        x[[10, 11]] = [13.5, 13.0]
    return x


def scores_of(recipe: str, vocab: int, seed: int, checksum: str) -> torch.Tensor:
    x = logits_for(recipe, vocab, seed)
    assert hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()[:16] == checksum, "recipe drifted"
    return torch.from_numpy(x)[None]


def cases(sampler: str) -> list[dict]:
    return [c for c in REFS["cases"] if c["sampler"] == sampler]


def case_id(c: dict) -> str:
    return f"{c['recipe']}-{c['vocab']}-" + "-".join(f"{v}" for v in c["settings"].values() if not isinstance(v, list))


def kept(scores: torch.Tensor) -> list[int]:
    return torch.isfinite(scores[0]).nonzero().flatten().tolist()


def test_fixtures_cover_the_edge_cases():
    recipes = {(c["sampler"], c["recipe"]) for c in REFS["cases"]}
    for sampler in ("top_n_sigma", "xtc", "mirostat_v2"):
        assert {(sampler, r) for r in ("equal", "one-left")} <= recipes
    assert {("top_n_sigma", "masked"), ("xtc", "masked"), ("xtc", "eos-top"), ("dry", "eos repeat")} <= recipes
    assert {c["sampler"] for c in REFS["cases"] if c["vocab"] == 262144} == {"top_n_sigma", "xtc", "mirostat_v2", "dry"}


@pytest.mark.parametrize("c", cases("top_n_sigma"), ids=case_id)
def test_top_n_sigma_keeps_what_llama_cpp_keeps(c):
    scores = scores_of(c["recipe"], c["vocab"], c["seed"], c["checksum"])
    assert kept(TopNSigmaLogitsWarper(c["settings"]["n"])(None, scores)) == c["kept"]


@pytest.mark.parametrize("c", cases("xtc"), ids=case_id)
def test_xtc_removes_what_llama_cpp_removes(c):
    scores = scores_of(c["recipe"], c["vocab"], c["seed"], c["checksum"])
    out = XTCLogitsWarper(c["settings"]["threshold"], c["settings"]["probability"])(None, scores)
    was = torch.isfinite(scores[0])
    removed = (was & ~torch.isfinite(out[0])).nonzero().flatten().tolist()
    want = c["removed"]
    if removed == want:
        return
    # Only where the top choices tie at the lowest probability (the "masked" case: six tokens at one
    # logit) may the one that stays differ: llama.cpp keeps the last of them in its sort order.
    probs = torch.softmax(scores[0], dim=-1)
    left_ours, left_ref = set(range(c["vocab"])) - set(removed), set(range(c["vocab"])) - set(want)
    (ours,), (ref,) = left_ours - left_ref, left_ref - left_ours
    assert len(removed) == len(want) and probs[ours] == probs[ref] and ref in removed


@pytest.mark.parametrize("c", cases("mirostat_v2"), ids=lambda c: f"{c['recipe']}-{c['vocab']}")
def test_mirostat_v2_truncates_and_steers_mu_as_llama_cpp(c):
    """Replayed with llama.cpp's sampled tokens: each step's kept set depends on μ, which depends on
    every earlier token's surprise, so matching all six steps checks the μ update too."""
    warper = MirostatV2LogitsWarper(c["settings"]["tau"], c["settings"]["eta"])
    ids = [1, 2, 3]
    for step in c["steps"]:
        scores = scores_of(c["recipe"], c["vocab"], step["seed"], step["checksum"])
        out = warper(torch.tensor([ids]), scores)
        ours, ref = kept(out), step["kept"]
        if ours != ref:  # only a tie for the single token left may differ (all logits equal)
            assert len(ours) == len(ref) == 1 and scores[0, ours[0]] == scores[0, ref[0]], f"step {step['seed']}"
        ids.append(step["selected"])


@pytest.fixture(scope="module")
def breakers():
    from transformers import AutoTokenizer

    from arena.model.llm import materialize
    from decoders.samplers import breaker_token_ids

    tokenizer = AutoTokenizer.from_pretrained(materialize(None))
    return breaker_token_ids(tokenizer, ["\n", ":", '"', "*"])


@pytest.mark.parametrize("c", cases("dry"), ids=case_id)
def test_dry_penalties_are_llama_cpp_penalties(c, breakers):
    s = c["settings"]
    dry = DRYLogitsProcessor(s["multiplier"], s["base"], s["allowed_length"], s["penalty_last_n"], breakers)
    out = dry(torch.tensor([c["context"]]), torch.zeros(1, c["vocab"]))
    got = {i: -float(out[0, i]) for i in (out[0] != 0).nonzero().flatten().tolist()}
    want = {int(k): v for k, v in c["penalties"].items()}
    assert got.keys() == want.keys()
    for k in want:
        assert got[k] == pytest.approx(want[k], rel=1e-5)


def test_the_dry_fixtures_penalise_something():
    """A reference that penalises nothing anywhere would pass any processor that does nothing."""
    assert sum(bool(c["penalties"]) for c in cases("dry")) >= 10
    assert any(max(c["penalties"].values(), default=0) > 1e6 for c in cases("dry"))  # the long repeat's cap
