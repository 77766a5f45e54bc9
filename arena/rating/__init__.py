"""What raters see and do: a study's spec and systems, the blind presentation, pairwise votes, attention items, the blind question."""
