"""What a study may hold: how many prompts, samples and side-by-side responses, which slots an
item gets, and a name that gives no method away. They live with the study's settings
(arena/rating/study_spec.py), whose checks read them; these names stay importable from here."""

from arena.rating.study_spec import MAX_ITEMS, MAX_RESPONSES, MAX_SAMPLES, expected_slots, method_names_in

__all__ = ["MAX_ITEMS", "MAX_RESPONSES", "MAX_SAMPLES", "expected_slots", "method_names_in"]
