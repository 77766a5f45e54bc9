"""The Organizer warns, as Compare does, when a study's Chinese prompts would go to the English-only
default model, and points at the multilingual model's tick box on the same page (not a restart)."""

from __future__ import annotations

from arena import studies
from ui.organizer_models import language_warning

OFFERED = ["smollm2-135m", "smollm2-135m@int8", "gemma-3-270m", "gemma-3-270m@int8"]


def test_chinese_builtin_prompts_on_the_default_model_point_at_the_gemma_tick_box():
    prompts = studies.builtin_prompts("zh")
    line = language_warning(prompts, ["smollm2-135m"], "smollm2-135m", OFFERED)
    assert line.startswith("⚠ SmolLM2-135M-Instruct is trained on English only")
    assert f"{len(prompts)} Chinese prompt" in line
    assert "Tick the multilingual gemma-3-270m under Models above" in line
    assert "restart" not in line and "python app.py" not in line


def test_no_warning_for_english_prompts_or_a_multilingual_choice():
    assert language_warning(studies.builtin_prompts("en"), None, "smollm2-135m", OFFERED) == ""
    assert language_warning(studies.builtin_prompts("zh"), ["gemma-3-270m"], "smollm2-135m", OFFERED) == ""


def test_ticking_gemma_next_to_smollm_still_warns_for_smollm():
    line = language_warning(["光合作用是什么？"], ["smollm2-135m", "gemma-3-270m"], "smollm2-135m", OFFERED)
    assert "SmolLM2-135M-Instruct is trained on English only" in line
    assert "Untick it under Models above to compare on gemma-3-270m alone" in line


def test_without_a_multilingual_model_offered_it_says_how_to_start_one():
    line = language_warning(["光合作用是什么？"], None, "smollm2-135m", OFFERED[:2])
    assert "--model gemma-3-270m" in line
