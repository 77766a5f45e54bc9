"""Which outputs a study needs, which it has, and which items a rater may see."""

from __future__ import annotations

from common import messages
from common.errors import UserError

from ..store import Item, Store, Study
from .limits import expected_slots


def pending_slots(store: Store, study_id: int) -> tuple[list[tuple[Item, str, int]], int]:
    """The (item, method, sample_index) slots still missing, and how many slots the study has."""
    study = store.get_study(study_id)
    if study is None:
        raise UserError(messages.text("no_study_with_id", id=study_id))
    done = store.output_slots(study_id)
    if study.imported_from is not None:  # its outputs are the file's, as given: nothing to generate
        return [], len(done)
    slots = expected_slots(study.methods, study.samples_per_method)
    all_items = store.items(study_id)
    missing = [(item, m, s) for item in all_items for (m, s) in slots if (item.id, m, s) not in done]
    return missing, len(all_items) * len(slots)


def ready_item_ids(store: Store, study_id: int) -> list[int]:
    """Items a rater may see: every expected output stored (ad-hoc items: stored as given)."""
    study = store.get_study(study_id)
    if study is None:
        return []
    return [i.id for i in ready_items(store, study)[0]]


def ready_items(store: Store, study: Study) -> tuple[list[Item], dict[int, int]]:
    """`ready_item_ids` as rows, for a study already read, and {item_id: outputs stored} for every
    item with outputs: what a rater's next item needs, in two queries."""
    per_item: dict[int, set[tuple[str, int]]] = {}
    for item_id, m, s in store.output_slots(study.id):
        per_item.setdefault(item_id, set()).add((m, s))
    stored = {i: len(slots) for i, slots in per_item.items()}
    if study.kind == "adhoc":
        return [i for i in store.items(study.id) if len(per_item.get(i.id, ())) >= 2], stored
    if study.imported_from is not None:  # its methods are the file's names, not decoders: stored as given
        return [i for i in store.items(study.id) if i.id in per_item], stored
    need = set(expected_slots(study.methods, study.samples_per_method))
    return [i for i in store.items(study.id) if need <= per_item.get(i.id, set())], stored
