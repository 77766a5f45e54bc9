"""One leaderboard of systems across the studies of one model set: the Results tab's "Leaderboard
across studies", as data.

Pairwise studies give their votes (`arena.files.pair_export.vote_rows`), 1-5 studies the comparisons
their scores imply (`evaluation.pairwise.implied_votes`); `evaluation.pairwise.leaderboard` fits
them together. What this module adds is which studies may enter and what a system is:

- **Only studies whose rating has closed.** Which method stood behind which response is a running
  study's secret, from the organizer too, and a board that moved as an open study's votes came in
  would tell it. Publicly (the Results tab) only published studies enter; `public=False` (the
  organizer) admits closed ones too. A study id that may not enter gets the same answer as one that
  does not exist.
- **One model set.** Studies are grouped by the models that wrote their outputs (the outputs'
  `model` label), so a board ranks decoders, not models. In a one-model set a system is the method
  (a study over one model names it "MODEL · METHOD", the same system); over several models it is
  the (model, method) pair.
- **One system, one configuration.** A method run with other settings in another study is another
  system: its name gets the settings that differ, "TS-Temp (temperature=0.7)".
- Raters are one person across studies (their name), shown nowhere: they are renamed "rater k"
  before anything is fitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from arena.files.pair_export import vote_rows
from arena.inputs.numbers import study_id as parse_study_id
from arena.rating import systems
from arena.store import Store, Study
from common import messages
from common.errors import UserError

from . import pairwise as pw
from .pairwise_view import leaderboard_table

NOT_ELIGIBLE = "there is no published study with that id"
BOARD_COLUMNS = [
    "rank",
    "system",
    "rating [95% CI]",
    "at equal length [95% CI]",
    "comparisons",
    "items",
    "wins / losses / ties",
    "studies (comparisons)",
    "provisional",
]
SOURCE_COLUMNS = ["study", "kind", "comparisons", "items", "raters", "max new tokens"]
KINDS = {"pairwise": messages.english("board_kind_pairwise"), "1-5": messages.english("board_kind_scores")}
KIND_KEYS = {"pairwise": "board_kind_pairwise", "1-5": "board_kind_scores"}


@dataclass(frozen=True)
class BoardGroup:
    """Studies that may share a board: `models` (the outputs' model labels), their ids, newest first."""

    models: tuple[str, ...]
    study_ids: tuple[int, ...]

    @property
    def key(self) -> str:
        return json.dumps(list(self.models), ensure_ascii=False)

    @property
    def label(self) -> str:
        n = len(self.study_ids)
        studies = ", ".join(f"#{s}" for s in self.study_ids)
        return f"{' + '.join(self.models)} · {n} stud{'y' if n == 1 else 'ies'} ({studies})"


def admitted(study: Study | None, public: bool = True) -> bool:
    """Whether a study's ratings may enter a board: rated studies whose rating has closed."""
    allowed = ("published",) if public else ("closed", "published")
    return study is not None and study.state in allowed


def study_models(store: Store, study_id: int) -> tuple[str, ...]:
    """The models that wrote a study's outputs (their labels), sorted; () before any output."""
    labels = store.outputs_frame(study_id)["model"].dropna().astype(str).str.strip()
    return tuple(sorted({m for m in labels if m}))


def board_groups(store: Store, *, public: bool = True) -> list[BoardGroup]:
    """The model sets of the admitted studies, the set with the newest study first."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for study in store.list_studies():  # newest first
        if admitted(study, public):
            models = study_models(store, study.id)
            if models:
                groups.setdefault(models, []).append(study.id)
    return [BoardGroup(models, tuple(ids)) for models, ids in groups.items()]


def _settings_words(settings: dict[str, Any], keys: Iterable[str]) -> str:
    return ", ".join(f"{k}={settings.get(k, '–')}" for k in keys)


def system_names(studies: Sequence[Study], one_model: bool) -> dict[int, dict[str, str]]:
    """{study id: {stored system: board system}}. In a one-model set the model prefix goes; a
    system whose settings differ between studies gets the differing settings in its name."""
    base = {s.id: {m: systems.method_of(m) if one_model else m for m in s.methods} for s in studies}
    variants: dict[str, dict[str, dict[str, Any]]] = {}
    for s in studies:
        for stored, name in base[s.id].items():
            settings = dict(s.settings.get(stored) or {})
            variants.setdefault(name, {})[json.dumps(settings, sort_keys=True, default=str)] = settings
    out: dict[int, dict[str, str]] = {}
    for s in studies:
        names = {}
        for stored, name in base[s.id].items():
            seen = list(variants[name].values())
            if len(seen) > 1:
                keys = sorted({k for v in seen for k in v if any(v.get(k) != w.get(k) for w in seen)})
                name = f"{name} ({_settings_words(dict(s.settings.get(stored) or {}), keys)})"
            names[stored] = name
        out[s.id] = names
    return out


def _chosen_studies(store: Store, model_set: Any, study_ids: Any, public: bool) -> tuple[BoardGroup, list[Study]]:
    groups = board_groups(store, public=public)
    if not groups:
        raise UserError(
            "no published study yet" if public else "no closed study yet: a board shows studies whose rating has closed"
        )
    given = study_ids if isinstance(study_ids, (list, tuple)) else [study_ids] if study_ids not in (None, "") else []
    wanted = [parse_study_id(s, f"{NOT_ELIGIBLE} in this model set") for s in given if str(s).strip()]
    if model_set in (None, ""):
        if not wanted:
            raise UserError("choose a model set")
        group = next((g for g in groups if wanted[0] in g.study_ids), None)
    else:
        group = next((g for g in groups if g.key == str(model_set)), None)
        if group is None:
            raise UserError("no such model set among the published studies" if public else "no such model set")
    if group is None or any(s not in group.study_ids for s in wanted):
        # An open, draft, unknown or other-model study: one answer, which says nothing about which.
        raise UserError(f"{NOT_ELIGIBLE} in this model set")
    ids = wanted or list(group.study_ids)
    chosen = [store.get_study(s) for s in ids]
    return group, [s for s in chosen if s is not None and admitted(s, public)]  # closed or published now


def board_frames(store: Store, studies: Sequence[Study], one_model: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pairwise votes, 1-5 ratings) of these studies with board system names and "rater k" raters."""
    names = system_names(studies, one_model)
    votes, ratings = [], []
    for s in studies:
        rename = names[s.id]
        if s.design == "pairwise":
            frame = pd.DataFrame(vote_rows(store, s.id), columns=list(pw.VOTE_COLUMNS + pw.LENGTH_COLUMNS))
            votes.append(frame.assign(system_a=frame["system_a"].map(rename), system_b=frame["system_b"].map(rename)))
        else:
            frame = store.ratings_frame(s.id)
            # Grouped by model set here; the system name carries the model where there are several.
            ratings.append(frame.assign(method=frame["method"].map(rename)).drop(columns=["model"]))
    vote_frame = pd.concat(votes, ignore_index=True) if votes else pd.DataFrame(columns=list(pw.VOTE_COLUMNS))
    rating_frame = pd.concat(ratings, ignore_index=True) if ratings else pd.DataFrame()
    people = sorted(set(vote_frame["rater"].astype(str)) | set(rating_frame.get("rater", pd.Series(dtype=str))))
    label = {name: f"rater {k}" for k, name in enumerate(people, start=1)}
    if len(vote_frame):
        vote_frame = vote_frame.assign(rater=vote_frame["rater"].astype(str).map(label))
    if len(rating_frame):
        rating_frame = rating_frame.assign(rater=rating_frame["rater"].astype(str).map(label))
    return vote_frame, rating_frame


def _studies_cell(by_study: dict[str, int]) -> str:
    return ", ".join(f"#{s}: {n}" for s, n in by_study.items())


def cross_study_view(
    store: Store,
    model_set: Any = None,
    study_ids: Any = None,
    *,
    public: bool = True,
    n_resamples: int = 1000,
    seed: int = 0,
    lang: str = "en",
) -> dict[str, Any]:
    """The board of `study_ids` (default: every admitted study of `model_set`, a `BoardGroup.key`):
    headline, takeaway lines, the table (BOARD_COLUMNS), the sources (SOURCE_COLUMNS), the
    `Leaderboard`. Raises UserError for a study that may not enter (`admitted`) or has no comparison.
    The words and the cells in `lang` (the columns keep their English names: the Results tab renames them)."""
    group, studies = _chosen_studies(store, model_set, study_ids, public)
    votes, ratings = board_frames(store, studies, one_model=len(group.models) == 1)
    try:
        board = pw.leaderboard(votes, ratings, n_resamples=n_resamples, seed=seed)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    table = leaderboard_table(board.ratings, lang).rename(columns={"method": "system", "votes": "comparisons"})
    cells = dict(zip(board.table["system"], board.table["comparisons_by_study"]))
    table.insert(7, "studies (comparisons)", [_studies_cell(cells[s]) for s in table["system"]])
    by_id = {s.id: s for s in studies}
    sources = pd.DataFrame(
        [
            {
                "study": f"#{r.study_id} {by_id[int(r.study_id)].name}",
                "kind": messages.text(KIND_KEYS[r.kind], lang),
                "comparisons": int(r.comparisons),
                "items": int(r.items),
                "raters": int(r.raters),
                "max new tokens": int(by_id[int(r.study_id)].max_new_tokens),
            }
            for r in board.sources.itertuples()
        ],
        columns=SOURCE_COLUMNS,
    )
    result = board.ratings
    kinds = board.sources["kind"].value_counts()
    headline = messages.text(
        "board_headline", lang, n=len(sources), studies="study" if len(sources) == 1 else "studies",
        models=" + ".join(group.models), pairwise=int(kinds.get("pairwise", 0)), scores=int(kinds.get("1-5", 0)),
        votes=result.n_votes, items=result.n_items, raters=result.n_raters,
    )  # fmt: skip
    lines = pw.explain(result, lang)  # its warnings included (they were listed twice)
    return {
        "headline": headline,
        "takeaway": lines[0],
        "lines": lines,
        "table": table[BOARD_COLUMNS],
        "sources": sources,
        "board": board,
        "group": group,
    }


def board_choices(store: Store, *, public: bool = True) -> list[tuple[str, str]]:
    """(label, key) of each model set with an admitted study, for a dropdown."""
    return [(g.label, g.key) for g in board_groups(store, public=public)]


def study_choices(store: Store, model_set: Any, *, public: bool = True, lang: str = "en") -> list[tuple[str, int]]:
    """(label, id) of the admitted studies of one model set, newest first; the design named in `lang`."""
    group = next((g for g in board_groups(store, public=public) if g.key == str(model_set or "")), None)
    if group is None:
        return []
    studies = [store.get_study(s) for s in group.study_ids]
    pairwise = messages.text("word_pairwise", lang)
    return [(f"#{s.id} {s.name} ({pairwise if s.design == 'pairwise' else '1–5'})", s.id) for s in studies if s]
