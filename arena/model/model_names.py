"""A model named in words for people who do not read hub ids: "SmolLM2-135M-Instruct (Hugging Face,
135 M parameters)" for "SmolLM2-135M-Instruct (embedded GGUF Q4_1, de-quantised)" or
"HuggingFaceTB/SmolLM2-135M-Instruct". The maker comes from the hub organisation or the model
family; the size from the name's own "135M" / "1.5B" (nothing is guessed where neither says)."""

from __future__ import annotations

import re

from common.messages import text

# Hub organisations and model-family prefixes (lower case) -> who made the model.
MAKERS = {
    "huggingfacetb": "Hugging Face",
    "smollm": "Hugging Face",
    "google": "Google",
    "gemma": "Google",
    "qwen": "Alibaba Qwen",
    "meta-llama": "Meta",
    "llama": "Meta",
    "mistralai": "Mistral AI",
    "mistral": "Mistral AI",
    "microsoft": "Microsoft",
    "phi": "Microsoft",
    "openai-community": "OpenAI",
    "gpt2": "OpenAI",
    "deepseek": "DeepSeek",
}
SIZE = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*([MmBb])(?![A-Za-z])")


def model_in_words(name: str, lang: str = "en") -> str:
    """`name` (a model setting, a hub id, a stored output's model column) as a person reads it, in `lang`."""
    given = str(name or "").strip()
    if not given:
        return text("model_unnamed", lang)
    base = given.split(" (")[0].strip()
    org, _, model = base.rpartition("/")
    model = re.sub(r"\.gguf$", "", model or base, flags=re.IGNORECASE)
    maker = MAKERS.get(org.lower()) if org else None
    if maker is None:
        low = model.lower()
        maker = next((who for prefix, who in MAKERS.items() if low.startswith(prefix)), None)
    size = SIZE.search(model)
    parts = [maker] if maker else []
    if size:
        parts.append(text("model_parameters", lang, n=size.group(1), unit=size.group(2).upper()))
    return text("model_named", lang, model=model, parts=text("story_list", lang).join(parts)) if parts else model
