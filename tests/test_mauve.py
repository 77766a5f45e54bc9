"""MAUVE behaves: human text against other human text of the same set scores near 1, and known
degradations (a phrase repeated, words shuffled) score clearly lower, under the embedded model's
features. Small sets (60 texts against 100), so it runs in seconds of k-means."""

import random

import numpy as np
import pytest

from evaluation.heldout import load_heldout
from evaluation.mauve_score import human_features, mauve_interval, mauve_value, score_texts, spread, text_features

N = 60


@pytest.fixture(scope="module")
def human_sets(lm):
    items = load_heldout("en")
    other = [i.continuation for i in spread(items, N, offset=3)]  # disjoint from the reference (offset 0)
    return other, human_features(lm, "en", 100)


def repeated(text: str) -> str:
    words = text.split()
    return " ".join((words[:4] * 12)[: len(words)])


def shuffled(text: str, rng: random.Random) -> str:
    words = text.split()
    rng.shuffle(words)
    return " ".join(words)


def test_human_against_human_is_near_one_and_degradations_are_lower(lm, human_sets):
    other, q = human_sets
    p_human = text_features(lm, other)
    human = mauve_value(p_human, q)
    low, high = mauve_interval(p_human, q, resamples=20)
    assert human > 0.8 and low <= human <= high
    rng = random.Random(0)
    for name, texts in (("repeated", [repeated(t) for t in other]), ("shuffled", [shuffled(t, rng) for t in other])):
        degraded = mauve_value(text_features(lm, texts), q)
        assert degraded < human - 0.2 and degraded < low, (
            f"{name}: {degraded:.3f} vs human {human:.3f} [{low:.3f}, {high:.3f}]"
        )


def test_score_texts_reports_its_interval_and_sizes(lm, human_sets):
    other, _ = human_sets
    result = score_texts(lm, other[:30], "en", n_human=100, resamples=10)
    assert result is not None and result.n_texts == 30 and result.n_human == 100 and result.resamples == 10
    assert result.ci_low <= result.ci_high and 0.0 <= result.mauve <= 1.0
    assert score_texts(lm, ["", "a"] * 4, "en", n_human=100) is None  # under 10 non-empty texts


def test_features_are_the_last_tokens_final_hidden_state(lm):
    import torch

    text = "And God said, Let there be light"
    ids = lm.tokenizer.encode(text, add_special_tokens=False)
    with torch.inference_mode():
        h = lm.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states[-1][0, -1].float()
    # batched with a longer text (right padding) gives the same vector
    got = text_features(lm, [text, text + " and there was light, and the evening and the morning"])[0]
    assert np.allclose(got, h.numpy(), atol=1e-3 * float(h.abs().max()))
