"""Diversity and degeneration metrics on inputs whose answers can be checked by hand."""

import math
from collections import Counter

import pytest

from evaluation.metrics import distinct_n, has_loop, repetition_rate, self_bleu, text_metrics, words, zipf_coefficient


def test_words_splits_punctuation_and_cjk_characters():
    assert words("Hi, 你好 World. Don't") == ["hi", ",", "你", "好", "world", ".", "don't"]


def test_distinct_n_on_a_toy_text():
    text = "the cat sat on the mat"  # 6 tokens, 5 types; bigrams: all 5 distinct
    assert distinct_n([text], 1) == pytest.approx(5 / 6)
    assert distinct_n([text], 2) == pytest.approx(1.0)
    # pooled over texts: "a b" twice among 2 bigrams -> 1/2
    assert distinct_n(["a b", "a b"], 2) == pytest.approx(0.5)
    assert math.isnan(distinct_n(["one"], 2))


def test_loop_needs_a_phrase_of_two_tokens_three_times_back_to_back():
    assert has_loop(words("I am fine. I am fine. I am fine."))
    assert has_loop("x y x y x y".split())
    assert not has_loop("x y x y x".split())  # only two full copies
    assert not has_loop("a a".split())
    assert not has_loop(words("of the cat and of the dog and of the end"))  # reuse, not a loop
    assert not has_loop("a a a".split())  # a one-token phrase is not enough...
    assert has_loop("a a a a a a".split())  # ...but "a a" three times back to back is
    assert repetition_rate(["x y x y x y", "a b c", "p q r p q r p q r", "z"]) == pytest.approx(0.5)


def test_zipf_coefficient_recovers_a_known_slope():
    exact = Counter({f"w{r}": 10_000 * r**-1.5 for r in range(1, 300)})
    assert zipf_coefficient(exact) == pytest.approx(1.5, abs=1e-9)
    # a real text whose word counts follow 1/r (rounded): slope close to 1
    text = " ".join(f"w{r}" for r in range(1, 101) for _ in range(round(1000 / r)))
    assert zipf_coefficient([text]) == pytest.approx(1.0, abs=0.02)
    assert zipf_coefficient([text], top=10) == pytest.approx(1.0, abs=0.02)


def test_self_bleu_is_one_for_copies_and_low_for_disjoint_texts():
    same = ["the quick brown fox jumps over the lazy dog"] * 3
    assert self_bleu(same) == pytest.approx(1.0)
    disjoint = ["alpha beta gamma delta epsilon", "one two three four five", "red green blue cyan magenta"]
    assert self_bleu(disjoint) < 0.05
    assert math.isnan(self_bleu(["only one"]))


def test_text_metrics_has_every_figure():
    m = text_metrics(["a b a b a b", "the cat sat on the mat"])
    assert set(m) == {"n_texts", "distinct_1", "distinct_2", "repetition_pct", "self_bleu4", "zipf"}
    assert m["repetition_pct"] == pytest.approx(50.0)
