"""Evaluation: automatic metrics (perplexity, diversity, degeneration), human-rating statistics,
the benchmark CLI (`python -m evaluation.benchmark`) and the Results table. Data flows one way:
runner / store -> evaluation -> UI."""
