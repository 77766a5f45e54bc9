"""A study's life: draft -> open -> closed -> published, and the one generation run it may have at a time.

Until a study is published nothing per method about it leaves the server except through the
organizer's routes; rating happens only while it is open; the mapping and seeds are shown to the
organizer once it is closed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from common import messages
from common.errors import UserError

from ..store import Store
from .slots import pending_slots

_running: set[int] = set()
_running_lock = threading.Lock()


@contextmanager
def generating(study_id: int) -> Iterator[None]:
    """Hold the study's one generation run for the block (`UserError` if another run holds it)."""
    with _running_lock:
        if study_id in _running:
            raise UserError(messages.english("study_generating_already"))
        _running.add(study_id)
    try:
        yield
    finally:
        with _running_lock:
            _running.discard(study_id)


def being_generated(study_id: int) -> bool:
    with _running_lock:
        return study_id in _running


def open_study(store: Store, study_id: int) -> None:
    """A draft (all outputs stored) or a closed study (rating resumes) becomes open; never an imported
    study, whose ratings were collected elsewhere (its responses are not here to rate)."""
    study = store.get_study(study_id)
    if study is not None and study.imported_from is not None:
        raise UserError(messages.text("study_imported_cannot_open", id=study.id, file=study.imported_from))
    missing, _ = pending_slots(store, study_id)
    if study is not None and study.kind == "study" and missing:
        raise UserError(messages.text("study_outputs_missing", n=len(missing)))
    store.set_study_state(study_id, "open", allowed_from=("draft", "closed"))


def close_study(store: Store, study_id: int) -> None:
    """Rating ends; the organizer may now see the mapping and the seeds."""
    store.set_study_state(study_id, "closed", allowed_from=("open", "draft"))


def publish_study(store: Store, study_id: int) -> None:
    """The study's results become public (Results tab, stakeholder page). Only a closed study."""
    store.set_study_state(study_id, "published", allowed_from=("closed",))
