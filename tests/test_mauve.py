"""MAUVE behaves: human text against other human text of the same set scores near 1, and known
degradations (a phrase repeated, words shuffled) score clearly lower, under the embedded model's
features. Small sets (60 texts against 100), so it runs in seconds of k-means. And Results shows MAUVE
next to perplexity for a published study (issue 37).

The first test embeds the 200 held-out human texts the Results tab compares with; the 100 the others
compare with are among them, so in one process (a file runs on one xdist worker) they are embedded
once (FEATURE_CACHE): it comes first for that. Run alone, each test still embeds what it needs.
FEATURE_CACHE also keeps its rows on disk beside the models, so a later run reads the held-out texts'
features instead (as a restarted app does); the degraded texts and the recipe test embed every time."""

import random

import numpy as np
import pytest

from evaluation import mauve_score
from evaluation.heldout import load_heldout
from evaluation.mauve_score import (
    FEATURE_CACHE,
    FeatureCache,
    human_features,
    mauve_interval,
    mauve_value,
    score_texts,
    spread,
    text_features,
)
from tests.support.seeding import publish, seed_study

N = 60


def test_results_shows_mauve_next_to_perplexity(tmp_path, lm):
    from arena.store import Store
    from evaluation.report import compute_view

    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    items = spread(load_heldout("en"), 12, offset=5)
    texts = [
        {"Human-like": item.continuation, "Looping": " ".join((item.continuation.split()[:3]) * 15)} for item in items
    ]
    sid, _ = seed_study(store, "mauve", [i.prompt for i in items], texts)
    publish(store, sid)
    view = compute_view(store, sid, lm=lm)
    table = view["table"].set_index("method")
    assert "MAUVE ↑" in table.columns and list(table.columns).index("MAUVE ↑") == list(table.columns).index("PPL ↓") + 1
    summary = view["summary"].set_index("method")
    human, looping = summary.loc["Human-like"], summary.loc["Looping"]
    assert looping["mauve"] < human["mauve"] and human["mauve_ci_low"] <= human["mauve"] <= human["mauve_ci_high"]
    assert table.loc["Human-like", "MAUVE ↑"].startswith(f"{human['mauve']:.2f} [")
    without = compute_view(store, sid, lm=None)  # no scorer: no perplexity, no MAUVE
    assert (without["table"]["MAUVE ↑"] == "–").all()
    store.dispose()


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
    p_human = FEATURE_CACHE.features(lm, other)  # through the product's cache: score_texts below reuses them
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


class Model:
    """A stand-in scorer: what FeatureCache reads of a model (its name and precision)."""

    def __init__(self, name: str = "m", precision: str = "float32") -> None:
        self.name, self.precision = name, precision


def made_up_features(lm: Model, texts: list[str]) -> np.ndarray:
    return np.array([[len(t), len(lm.name), len(lm.precision)] for t in texts], dtype=np.float32)


def test_the_feature_cache_embeds_each_text_once_per_model_and_precision(monkeypatch):
    embedded: list[list[str]] = []

    def recorded(lm, texts):
        embedded.append(list(texts))
        return made_up_features(lm, texts)

    monkeypatch.setattr(mauve_score, "text_features", recorded)
    cache, fp32 = FeatureCache(), Model()
    assert np.array_equal(cache.features(fp32, ["a", "bb", "a"]), made_up_features(fp32, ["a", "bb", "a"]))
    assert embedded == [["a", "bb"]]  # a text twice is embedded once
    assert np.array_equal(cache.features(fp32, ["bb", "ccc", "a"]), made_up_features(fp32, ["bb", "ccc", "a"]))
    assert embedded[1:] == [["ccc"]]
    bf16, other = Model(precision="bfloat16"), Model(name="other")
    assert np.array_equal(cache.features(bf16, ["a"]), made_up_features(bf16, ["a"]))
    assert np.array_equal(cache.features(other, ["a"]), made_up_features(other, ["a"]))
    assert embedded[2:] == [["a"], ["a"]] and len(cache) == 5
    assert len(cache.features(fp32, [])) == 0 and len(cache) == 5


def test_the_feature_cache_forgets_the_least_recently_used_past_its_size(monkeypatch):
    embedded: list[str] = []

    def recorded(lm, texts):
        embedded.extend(texts)
        return np.ones((len(texts), 4), dtype=np.float32)

    monkeypatch.setattr(mauve_score, "text_features", recorded)
    cache, lm = FeatureCache(max_bytes=3 * 16), Model()  # three rows of 4 float32
    cache.features(lm, ["a", "b", "c"])
    cache.features(lm, ["a"])  # read again: now the most recent, so "b" goes first
    cache.features(lm, ["d"])
    assert len(cache) == 3 and embedded == ["a", "b", "c", "d"]
    cache.features(lm, ["a", "c", "d"])
    assert embedded == ["a", "b", "c", "d"]  # all three still kept
    cache.features(lm, ["b"])
    assert embedded[4:] == ["b"] and len(cache) == 3


def test_the_feature_cache_keeps_its_rows_on_disk_for_the_next_process(monkeypatch, tmp_path):
    import torch

    embedded: list[list[str]] = []

    def expected(lm, texts):
        return made_up_features(lm, texts) + float(lm.model.weight.detach().sum())

    def recorded(lm, texts):
        embedded.append(list(texts))
        return expected(lm, texts)

    monkeypatch.setattr(mauve_score, "text_features", recorded)
    lm = Model()
    lm.model = torch.nn.Linear(3, 2)  # what the fingerprint reads: the weights
    first = FeatureCache(folder=tmp_path).features(lm, ["a", "bb"])
    assert embedded == [["a", "bb"]] and len(list(tmp_path.rglob("*.npy"))) == 2
    again = FeatureCache(folder=lambda: tmp_path)  # a new process: nothing in memory
    assert np.array_equal(again.features(lm, ["bb", "ccc", "a"]), expected(lm, ["bb", "ccc", "a"]))
    assert embedded[1] == ["ccc"] and np.array_equal(again.features(lm, ["a"])[0], first[0])
    with torch.no_grad():
        lm.model.weight.add_(1.0)  # other weights under the same name and precision
    assert np.array_equal(FeatureCache(folder=tmp_path).features(lm, ["a"]), expected(lm, ["a"]))
    assert embedded[2:] == [["a"]]  # embedded again, not read from the old weights' file
    FeatureCache().features(lm, ["dddd"])  # no folder: nothing written
    assert len(list(tmp_path.rglob("*.npy"))) == 4 and not list(tmp_path.rglob("*.tmp"))
