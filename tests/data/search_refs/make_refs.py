"""Record contrastive search and DoLa token ids from the last transformers release that had them in core.

Run by hand, never by the tests (they read `search_refs.json`). transformers 4.55.4 is the last release
with `_contrastive_search` and `_dola_decoding` in `generation/utils.py` (4.56.0 moved both to hub
repositories, which this app cannot download). The recipe, on any machine with the embedded model
converted (start the app or run `python -m decoders --list` once):

    python3 -m venv /tmp/venv-oldtf
    /tmp/venv-oldtf/bin/pip install transformers==4.55.4
    # torch and gguf from the project's venv, behind the old transformers:
    echo "$PWD/.venv/lib/python3.11/site-packages" > /tmp/venv-oldtf/lib/python3.11/site-packages/zz-arena.pth
    /tmp/venv-oldtf/bin/python tests/data/search_refs/make_refs.py MODEL_FOLDER

MODEL_FOLDER is the converted SmolLM2 folder (`python -c "from arena.model.llm import materialize; print(materialize(None))"`
in the project's venv). Float32, greedy: nothing random. The folder's config.json is written by
transformers 5 (`rope_parameters`), which 4.55 does not read, so `rope_theta` is set from it here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast

PROMPTS = [
    "The capital of France is",
    "Once upon a time, in a small village by the sea, there lived",
    "Here are three tips for learning a new language:",
    "<|im_start|>user\nWhy is the sky blue?<|im_end|>\n<|im_start|>assistant\n",
]
CONTRASTIVE = [{"penalty_alpha": 0.6, "top_k": 4}, {"penalty_alpha": 0.3, "top_k": 8}]
DOLA = [
    {"dola_layers": "high", "repetition_penalty": 1.2},
    {"dola_layers": "low", "repetition_penalty": 1.2},
    {"dola_layers": "high", "repetition_penalty": 1.0},
]
MAX_NEW = 32


def main(folder: str) -> None:
    config = AutoConfig.from_pretrained(folder)
    raw = json.loads((Path(folder) / "config.json").read_text())
    config.rope_theta = raw.get("rope_parameters", {}).get("rope_theta", getattr(config, "rope_theta", 10000.0))
    model = AutoModelForCausalLM.from_pretrained(folder, config=config, torch_dtype=torch.float32).eval()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(Path(folder) / "tokenizer.json"))
    cases = []
    for prompt in PROMPTS:
        ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
        common = dict(attention_mask=torch.ones_like(ids), max_new_tokens=MAX_NEW, pad_token_id=2, do_sample=False)
        with torch.no_grad():
            greedy = model.generate(ids, **common)
            for method, settings_list in (("Contrastive", CONTRASTIVE), ("DoLa", DOLA)):
                for settings in settings_list:
                    out = model.generate(ids, trust_remote_code=True, **common, **settings)
                    cases.append(
                        {
                            "method": method,
                            "settings": settings,
                            "prompt_ids": ids[0].tolist(),
                            "output_ids": out[0, ids.shape[1] :].tolist(),
                        }
                    )
        cases.append(
            {
                "method": "Greedy",
                "settings": {},
                "prompt_ids": ids[0].tolist(),
                "output_ids": greedy[0, ids.shape[1] :].tolist(),
            }
        )
    record = {
        "made_by": "tests/data/search_refs/make_refs.py",
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "dtype": "float32",
        "max_new_tokens": MAX_NEW,
        "cases": cases,
    }
    out = Path(__file__).with_name("search_refs.json")
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
