"""Our MAUVE (evaluation/divergence_frontier.py) against `mauve-text`, the authors' GPLv3 package, on
the same features: within 0.01 on identical, resampled, shifted and disjoint sets, with mauve-text's
defaults and with the product's bootstrap settings; and no product module imports mauve-text (or the
faiss and scikit-learn it brings), nor do the runtime requirements list it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from evaluation import divergence_frontier as frontier
from evaluation.mauve_score import mauve_value

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("common", "decoders", "arena", "evaluation", "ui", "serving")
TEST_ONLY = {"mauve", "mauve_text", "faiss", "sklearn", "statsmodels"}  # imported names
TEST_ONLY_PACKAGES = {"mauve-text", "faiss-cpu", "scikit-learn", "statsmodels"}  # requirement names


def reference(p: np.ndarray, q: np.ndarray, **settings) -> float:
    """mauve-text's score, its k-means on one thread (its thread team spins on a busy machine)."""
    import faiss
    import mauve  # the GPLv3 reference: a dev requirement, imported by this test only
    from threadpoolctl import threadpool_limits

    faiss.omp_set_num_threads(1)
    with threadpool_limits(1):
        return float(mauve.compute_mauve(p_features=p, q_features=q, **settings).mauve)


def clusters(rng: np.random.Generator, centres: np.ndarray, n: int, shift: float = 0.0) -> np.ndarray:
    """`n` points around `centres` (texts of a few kinds), moved by `shift` in every coordinate."""
    picked = centres[rng.integers(len(centres), size=n)]
    return (picked + rng.normal(size=picked.shape) + shift).astype(np.float32)


def feature_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(8, 48)) * 3
    q = clusters(rng, centres, 200)
    return {
        "identical": (q.copy(), q),
        "same distribution": (clusters(rng, centres, 180), q),
        "half the kinds": (clusters(rng, centres[:4], 150), q),
        "shifted": (clusters(rng, centres, 220, shift=0.5), q),
        "gaussians apart by 0.3": (
            rng.normal(size=(300, 64)).astype(np.float32) + 0.3,
            rng.normal(size=(250, 64)).astype(np.float32),
        ),
        "different": (clusters(rng, rng.normal(size=(8, 48)) * 3, 200), q),
        "thirty texts": (clusters(rng, centres, 30, shift=0.2), q[:40]),
    }


SETS = feature_sets()
SETTINGS = {
    "mauve-text's defaults": ({}, {}),
    "the product's bootstrap (1 start, 100 iterations)": (
        {"kmeans_num_redo": 1, "kmeans_max_iter": 100},
        {"starts": 1, "max_iter": 100},
    ),
}


@pytest.mark.parametrize("settings", SETTINGS, ids=list(SETTINGS))
@pytest.mark.parametrize("name", SETS, ids=list(SETS))
def test_ours_is_within_001_of_mauve_text_on_the_same_features(name, settings):
    p, q = SETS[name]
    theirs, ours = SETTINGS[settings]
    expected = reference(p, q, **theirs)
    got = frontier.mauve(p, q, frontier.Quantisation(**ours))
    assert abs(got - expected) <= 0.01, f"{name}: ours {got:.4f}, mauve-text {expected:.4f}"


def test_the_sets_span_the_scale():
    """The comparison above means something only if the sets reach from equal to disjoint."""
    scores = {name: reference(p, q) for name, (p, q) in SETS.items()}
    assert scores["identical"] > 0.99 and scores["different"] < 0.05
    assert any(0.2 < s < 0.8 for s in scores.values()), scores


def test_the_product_path_is_ours_with_the_bootstrap_settings():
    p, q = SETS["half the kinds"]
    assert mauve_value(p, q) == frontier.mauve(p, q, frontier.Quantisation(starts=1, max_iter=100))
    assert abs(mauve_value(p, q) - reference(p, q, kmeans_num_redo=1, kmeans_max_iter=100)) <= 0.01


def test_on_the_embedded_models_features_too(lm):
    """Features of real text under the arena's model: held-out human text against other human text,
    and against the same texts with their words reversed. Through the product's feature cache (what the
    comparison is about is the frontier, not the embedding; tests/test_mauve.py checks that): a later
    run reads them from the cache folder."""
    from evaluation.heldout import load_heldout
    from evaluation.mauve_score import FEATURE_CACHE, spread

    texts = [i.continuation for i in spread(load_heldout("en"), 90)]
    human = FEATURE_CACHE.features(lm, texts[:50])
    other = FEATURE_CACHE.features(lm, texts[50:])
    reversed_ = FEATURE_CACHE.features(lm, [" ".join(t.split()[::-1]) for t in texts[50:]])
    for p in (other, reversed_):
        assert abs(frontier.mauve(p, human) - reference(p, human)) <= 0.01


def test_equal_histograms_score_one_and_disjoint_ones_near_zero():
    even = np.full(4, 0.25)
    assert frontier.area_under(frontier.divergence_curve(even, even)) == pytest.approx(1.0)
    apart = frontier.area_under(frontier.divergence_curve(np.array([1.0, 0.0]), np.array([0.0, 1.0])))
    assert 0.0 < apart < 0.01


def test_the_score_of_two_histograms_does_not_depend_on_which_is_p():
    rng = np.random.default_rng(3)
    for _ in range(20):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6) * 0.5)
        forward = frontier.area_under(frontier.divergence_curve(p, q))
        assert forward == pytest.approx(frontier.area_under(frontier.divergence_curve(q, p)), abs=1e-12)


def test_bad_features_are_refused_in_words():
    with pytest.raises(ValueError, match="same d"):
        frontier.mauve(np.zeros((20, 3)), np.zeros((20, 4)))
    with pytest.raises(ValueError, match="non-empty"):
        frontier.mauve(np.zeros((0, 3)), np.zeros((20, 3)))


def product_files() -> list[Path]:
    files = [ROOT / "app.py"]
    for folder in PRODUCT:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def imported_tops(path: Path) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            tops |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def test_no_product_module_imports_mauve_text_or_the_other_test_only_packages():
    found = {
        f"{path.relative_to(ROOT)}: {name}" for path in product_files() for name in imported_tops(path) & TEST_ONLY
    }
    assert not found


def test_the_scan_sees_an_import_of_mauve(tmp_path):
    """The scan above would catch one: a late import inside a function, as the old wrapper had."""
    module = tmp_path / "late.py"
    module.write_text("def f():\n    import mauve\n    from sklearn.decomposition import PCA\n")
    assert imported_tops(module) & TEST_ONLY == {"mauve", "sklearn"}


def requirement_names(path: Path) -> set[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return {re.split(r"[=<>\[ ;]", line)[0].lower() for line in lines if line}


def test_the_runtime_requirements_carry_none_of_them_and_the_dev_ones_do():
    assert not requirement_names(ROOT / "requirements.txt") & TEST_ONLY_PACKAGES
    assert TEST_ONLY_PACKAGES <= requirement_names(ROOT / "requirements-dev.txt")
    toml = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = toml.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert not {name for name in TEST_ONLY_PACKAGES if f'"{name}' in dependencies}
