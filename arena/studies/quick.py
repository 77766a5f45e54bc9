"""Quick studies: "Send these to the Rate tab" on a Compare run, for the person who ran it.

A quick study is a one-item ad-hoc study (`quick_item`, kind "adhoc") of the Compare tab's finished
results with one invite code (`create`), which goes only into the server-side state of the browser
tab that ran the Compare (ui/rate/handlers.py). So that the button cannot fill the database:

* one quick study per Compare run (the tab keeps it: pressing again opens the same one);
* at most `ARENA_QUICK_STUDIES_PER_HOUR` per client per hour (a client as arena/access/clients.py reads it);
* quick studies are not the organizer's: they are left out of the Organizer's lists and are not
  reserved prompts (their outputs were shown with method names already);
* each lives `ARENA_QUICK_STUDY_HOURS`; `expire` deletes older ones, each in one transaction that
  refuses if the study changed after it was read (so a rating being saved is never cut in half).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.access import invites
from arena.inputs.prompts import clean_prompt
from arena.rating import systems
from arena.rating.guessing import LABELS
from arena.rating.study_spec import StudySpec
from arena.runs.requests import MethodResult, output_fields
from common.errors import UserError

from ..settings import current as current_settings
from ..store import SCORE_COLUMNS, Store
from .limits import MAX_RESPONSES

log = logging.getLogger(__name__)

QUICK_SCENARIO = "quick"
QUICK_RATER = "you (quick rating)"
WINDOW_S = 3600.0
NOT_RATED_YET = "score every response first: the methods are shown once your scores are saved"

Results = Iterable[MethodResult | Mapping[str, Any]]


def rateable(results: Results) -> list[MethodResult | Mapping[str, Any]]:
    """The results as a list, or UserError if they cannot be rated side by side."""
    results = list(results or [])
    if len(results) < 2:
        raise UserError("run at least two methods first; blind rating compares their outputs")
    if len(results) > MAX_RESPONSES:
        raise UserError(f"at most {MAX_RESPONSES} outputs can be rated side by side")
    return results


def quick_item(store: Store, lm_name: str, prompt: str, results: Results, raw: bool = False) -> tuple[int, int]:
    """Turn the Compare tab's finished results into a one-item ad-hoc study; return (study_id, item_id)."""
    fields = [
        output_fields(r) | {"method": (r.method if isinstance(r, MethodResult) else r["method"])}
        for r in rateable(results)
    ]
    prompt = clean_prompt(prompt)
    methods = list(dict.fromkeys(f["method"] for f in fields))
    max_new = max(int((f["settings"] or {}).get("max_new_tokens", 0) or 0) for f in fields) or 1
    seed = next((f["seed"] for f in fields if f["seed"] is not None), 0)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    with store.transaction():  # a study without its outputs would be a quick rating nobody can rate
        # the Compare tab's settings, as they ran (not checked again: each output holds its own)
        spec = StudySpec(f"Quick rating {when} UTC", methods=methods, max_new_tokens=max_new, base_seed=int(seed))
        study_id = store.create_study(**spec.store_fields(), kind="adhoc", model=lm_name)
        [item_id] = store.add_items(study_id, [{"prompt": prompt, "scenario": QUICK_SCENARIO, "raw": bool(raw)}])
        seen: dict[str, int] = {}
        for f in fields:
            method = f.pop("method")
            sample = seen.get(method, 0)
            seen[method] = sample + 1
            # a Compare grid's cell is a system "MODEL · METHOD": stored with the model that wrote it
            store.add_output(item_id, method, sample, model=systems.model_of(method) or lm_name, **f)
    return study_id, item_id


class HourlyLimit:
    """At most `limit()` events per client in any `window_s` (a sliding window, in memory)."""

    def __init__(self, limit=lambda: current_settings().quick_studies_per_hour, window_s: float = WINDOW_S, clock=None):
        self.limit, self.window_s = limit, window_s
        self.clock = clock or time.monotonic
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Count one event for `client`, or UserError if it has had its share this hour."""
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault(client, deque())
            while seen and now - seen[0] >= self.window_s:
                seen.popleft()
            if self.limit() <= 0:
                raise UserError("quick ratings are turned off on this server")
            if len(seen) >= self.limit():
                wait = max(1, round((self.window_s - (now - seen[0])) / 60))
                raise UserError(
                    f"{self.limit()} quick ratings an hour from here is the limit; try again in about {wait} min"
                )
            seen.append(now)
            if len(self._seen) > 100_000:
                self._seen.pop(next(iter(self._seen)))

    def reset(self) -> None:
        with self._lock:
            self._seen.clear()


per_client = HourlyLimit()


def create(store: Store, lm_name: str, prompt: str, results: Results, raw: bool, client: str) -> tuple[int, str]:
    """A quick study of one Compare run for `client`: (study id, the one invite code)."""
    results = rateable(results)  # before the hour's share is taken: a refused run costs none of it
    expire(store)
    per_client.take(client)
    study_id, _ = quick_item(store, lm_name, prompt, results, raw)
    [mine] = invites.invite(store, study_id, [QUICK_RATER])
    return study_id, mine.code


def expire(store: Store, now: datetime | None = None) -> int:
    """Delete the quick studies older than `ARENA_QUICK_STUDY_HOURS`; return how many went."""
    cutoff = (now or datetime.now(UTC)) - timedelta(hours=current_settings().quick_study_hours)
    gone = 0
    for study in store.list_studies(kind="adhoc"):
        created = study.created_at if study.created_at.tzinfo else study.created_at.replace(tzinfo=UTC)
        if created >= cutoff:
            continue
        try:
            store.delete_study(study.id, expect=store.deletion_fingerprint(study.id))
            gone += 1
        except UserError as exc:  # rated right now, or gone already: the next call tries again
            log.info("quick study #%d not deleted yet: %s", study.id, exc)
    return gone


@dataclass(frozen=True)
class Revealed:
    """One response of a quick study after its rater scored it: which method wrote it, and the scores."""

    label: str
    method: str
    scores: dict[str, int | None]  # None: "can't judge"


def reveal_own(store: Store, code: object, client: str | None = None) -> list[Revealed]:
    """The reveal of a blind quick rating: for the code's rater, which method stood behind each label.

    Only for a quick study, and only once every response this rater was shown has a stored rating
    (a submit is all or nothing): before that the mapping stays on the server, whoever asks.
    """
    enrolment = invites.resolve(store, code, client)
    study = store.get_study(enrolment.study_id)
    if study is None or study.kind != "adhoc":
        raise UserError("only a quick rating is revealed to its rater; a study's mapping is the organizer's")
    items = store.items(study.id)
    shown = store.assignment(enrolment.rater_id, items[0].id) if items else {}
    ratings = store.ratings_for(enrolment.rater_id, shown.values())
    if not shown or any(oid not in ratings for oid in shown.values()):
        raise UserError(NOT_RATED_YET)
    methods = {o.id: o.method for o in store.outputs_for_item(items[0].id)}
    return [
        Revealed(
            LABELS[position],
            methods[oid],
            {d: _number(ratings[oid].score(d)) for d in SCORE_COLUMNS},
        )
        for position, oid in sorted(shown.items())
    ]


def _number(answer: int | str | None) -> int | None:
    """A quick rating's score (the default rubric's 1-5 questions): a whole number, None for can't judge."""
    return None if answer is None else int(answer)
