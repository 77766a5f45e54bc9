"""Ratings in the long format other teams publish: one row per score.

    study_id, item_id, rater, method, dimension, score
    [position, attention_passed, scale_min, scale_max, output_id, created_at, study_name, question_type]

Each row is one rater's score of one method's response to one item on one question (`dimension`).
`read_long_ratings` checks every row and gathers them into one record per (study, item, rater,
method) with a score per dimension, the shape the store keeps and the statistics read; each study
gets its rubric (common/rubric.py: the file's dimensions in the order they first appear, each with
its scale). Pure Python (no pandas), so `python -m arena.export` can import such a file as a study.

* The scale: `scales` (the command line's `--scale 1-10`, or one per dimension), or the
  `scale_min`/`scale_max` columns (the same on every row of a dimension), else the default 1-5.
  Given both ways, they must agree.
* An empty score is "can't judge": missing data, never a number.
* `question_type` (empty: `scale`): the question's type (common/questions/), the same on every row
  of a dimension. `yes-no` scores read yes/no, true/false or 1/0; a `choice`'s labels are the texts
  its scores hold, in the order they first appear (2 to 8 of them); a `text` score is a comment
  (empty: no comment, not "can't judge").
* `attention_passed` (true/false, yes/no, 1/0, pass/fail; empty = not recorded) is about the rater:
  a rater with any false value failed an attention check (`LongStudy.failed_attention`). The file's
  attention items themselves are not rating rows.
* `output_id`, when absent, is item and method (one response per method and item).
* The same score twice for one (study, item, rater, method, dimension) is counted once (a warning
  says how many); two different scores are an error.

Every error is a `UserError` naming the file and the line; nothing is returned half-read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.files.readers import CsvTable, read_csv
from common.errors import UserError
from common.questions import DEFAULT_TYPE, question_type
from common.rubric import DEFAULT_RUBRIC, Dimension, Rubric, check_name, check_scale

LONG_COLUMNS: tuple[str, ...] = ("study_id", "item_id", "rater", "method", "dimension", "score")
LONG_OPTIONAL: tuple[str, ...] = (
    "position",
    "attention_passed",
    "scale_min",
    "scale_max",
    "output_id",
    "created_at",
    "study_name",
    "question_type",
)
DEFAULT_SCALE: tuple[int, int] = (DEFAULT_RUBRIC.dimensions[0].low, DEFAULT_RUBRIC.dimensions[0].high)
TRUE = frozenset({"true", "yes", "1", "pass", "passed", "t", "y"})
FALSE = frozenset({"false", "no", "0", "fail", "failed", "f", "n"})
ALL = ""  # the key of a scale that applies to every dimension


@dataclass(frozen=True)
class LongRating:
    """One rater's scores of one method's response to one item: {dimension: score or None}."""

    study_id: str
    item_id: str
    rater: str
    method: str
    output_id: str
    position: int | None
    scores: Mapping[str, int | str | None]  # a comment's text; every other type's stored value
    line: int  # the first line of the file that holds one of its scores
    created_at: str | None = None


@dataclass(frozen=True)
class LongStudy:
    study_id: str
    name: str | None
    rubric: Rubric
    ratings: tuple[LongRating, ...]
    attention: Mapping[str, bool] = field(default_factory=dict)  # rater -> passed every check (recorded ones)

    @property
    def raters(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.rater for r in self.ratings))

    @property
    def failed_attention(self) -> tuple[str, ...]:
        """Raters with any false `attention_passed`, in order of first appearance."""
        return tuple(r for r, ok in self.attention.items() if not ok)


@dataclass(frozen=True)
class LongFile:
    studies: tuple[LongStudy, ...]
    warnings: tuple[str, ...] = ()


def is_long(header: Sequence[str]) -> bool:
    """Whether a CSV header is the long format (it names `dimension` and `score`)."""
    return "dimension" in header and "score" in header


def read_long_ratings(
    path: str | Path,
    scales: Mapping[str, tuple[int, int]] | None = None,
    dimensions: Sequence[str] | None = None,
    label: str | None = None,
) -> LongFile:
    """The studies of a long-format CSV, checked (see the module docstring). `scales`: {dimension:
    (low, high)}, the key ALL ("") for every dimension; `dimensions`: the only names allowed (a
    study's rubric), any other is an error."""
    label = str(path) if label is None else label
    return long_ratings(read_csv(path, label), label, scales, dimensions)


def long_ratings(
    table: CsvTable,
    label: str,
    scales: Mapping[str, tuple[int, int]] | None = None,
    dimensions: Sequence[str] | None = None,
) -> LongFile:
    """`read_long_ratings` of a CSV table already read."""
    missing = [c for c in LONG_COLUMNS if c not in table.header]
    if missing:
        raise UserError(
            f"{label}: missing column(s) {', '.join(missing)} (the long format needs {', '.join(LONG_COLUMNS)})"
        )
    if not table.rows:
        raise UserError(f"{label} has no ratings")
    if dimensions is not None and not [d for d in dimensions if str(d).strip()]:
        raise UserError(f"{label}: the rubric names no dimension")
    given = {k: (int(lo), int(hi)) for k, (lo, hi) in (scales or {}).items()}
    for name, (lo, hi) in given.items():
        check_scale(lo, hi, name)
    found = _Gathered(label, None if dimensions is None else {check_name(d) for d in dimensions})
    for row in table.rows:
        found.add(row.line, {k: (row.values.get(k) or "").strip() for k in (*LONG_COLUMNS, *LONG_OPTIONAL)})
    return found.studies(given)


Key = tuple[str, str, str, str]  # study, item, rater, method


@dataclass
class _Gathered:
    """The rows of a long file, checked one by one and gathered per (study, item, rater, method)."""

    label: str
    allowed: set[str] | None
    cells: dict[Key, dict[str, tuple[int | str | None, int]]] = field(default_factory=dict)  # dim -> (score, line)
    extra: dict[Key, tuple[str, int | None, str | None]] = field(default_factory=dict)  # output, position, time
    dims_of: dict[str, dict[str, tuple[int, int] | None]] = field(default_factory=dict)  # declared scales
    names: dict[str, str | None] = field(default_factory=dict)
    types: dict[str, dict[str, str]] = field(default_factory=dict)  # study -> dimension -> question type
    attention: dict[str, dict[str, bool]] = field(default_factory=dict)
    repeats: int = 0

    def add(self, line: int, v: Mapping[str, str]) -> None:
        at = f"{self.label}, line {line}"
        for col in ("study_id", "item_id", "rater", "method", "dimension"):
            if not v[col]:
                raise UserError(f"{at}: {col} is empty")
        study, dim = v["study_id"], _dimension(v["dimension"], at, self.allowed)
        self.names.setdefault(study, v["study_name"] or None)
        declared = _declared_scale(v, at)
        known = self.dims_of.setdefault(study, {})
        if dim in known and declared is not None and known[dim] not in (None, declared):
            raise UserError(
                f"{at}: {dim} is on the scale {_words(known[dim])} on an earlier line, {_words(declared)} here"
            )
        if known.get(dim) is None:
            known[dim] = declared
        kind = self.kind(study, dim, v["question_type"], at)
        if kind != DEFAULT_TYPE and declared is not None:
            raise UserError(f"{at}: {dim} is a {kind} question: scale_min/scale_max belong to a scale")
        score = _score(v["score"], dim, at) if kind == DEFAULT_TYPE else (v["score"] or None)
        key = (study, v["item_id"], v["rater"], v["method"])
        scores = self.cells.setdefault(key, {})
        if dim in scores:
            if scores[dim][0] != score:
                raise UserError(
                    f"{at}: rater {v['rater']!r} scored {v['method']!r} on item {v['item_id']!r} for {dim} twice "
                    f"(line {scores[dim][1]}: {scores[dim][0]}, here: {score})"
                )
            self.repeats += 1
            return
        scores[dim] = (score, line)
        position = _position(v["position"], at)
        self.extra.setdefault(
            key, (v["output_id"] or f"{v['item_id']}:{v['method']}", position, v["created_at"] or None)
        )
        passed = _flag(v["attention_passed"], at)
        flags = self.attention.setdefault(study, {})
        if passed is not None:
            flags[v["rater"]] = flags.get(v["rater"], True) and passed

    def kind(self, study: str, dim: str, text: str, at: str) -> str:
        """The question type of `dim` in `study`, the same on each of its rows."""
        try:
            kind = question_type(text or DEFAULT_TYPE).name
        except UserError as exc:
            raise UserError(f"{at}: {exc}") from None
        known = self.types.setdefault(study, {}).setdefault(dim, kind)
        if known != kind:
            raise UserError(f"{at}: {dim} is a {known} question on an earlier line, {kind} here")
        return kind

    def studies(self, given: Mapping[str, tuple[int, int]]) -> LongFile:
        """The studies, each score checked against its dimension's scale."""
        unknown = [k for k in given if k != ALL and not any(k in dims for dims in self.dims_of.values())]
        if unknown:
            raise UserError(
                f"{self.label}: a scale was given for {', '.join(map(repr, unknown))}, which the file does not rate"
            )
        rubrics = {sid: self.rubric(sid, dims, given) for sid, dims in self.dims_of.items()}
        for (study, *_), scores in self.cells.items():
            for dim, (score, line) in scores.items():
                d = rubrics[study].dimension(dim)
                if d.kind != DEFAULT_TYPE:
                    scores[dim] = (_answer(d, score, f"{self.label}, line {line}"), line)
                elif score is not None and not d.contains(int(score)):
                    unset = not given and not self.dims_of[study][dim]
                    hint = " (give the scale: --scale MIN-MAX, or scale_min/scale_max columns)" if unset else ""
                    raise UserError(
                        f"{self.label}, line {line}: {dim} = {score} is outside its scale {d.scale_words}{hint}"
                    )
        studies = tuple(
            LongStudy(sid, self.names.get(sid), rubric, self.records(sid, rubric), dict(self.attention.get(sid, {})))
            for sid, rubric in rubrics.items()
        )
        note = f"{self.label}: {self.repeats} exact repeat(s) of a score (same rater, item, method, dimension and score) counted once"
        return LongFile(studies, (note,) if self.repeats else ())

    def rubric(
        self, study: str, dims: Mapping[str, tuple[int, int] | None], given: Mapping[str, tuple[int, int]]
    ) -> Rubric:
        """The study's rubric: each dimension's scale, or its type (a choice's labels as first seen)."""
        kinds = self.types.get(study, {})
        labels: dict[str, dict[str, None]] = {d: {} for d, k in kinds.items() if k == "choice"}
        for (sid, *_), scores in self.cells.items():
            for dim, (score, _) in scores.items():
                if sid == study and dim in labels and isinstance(score, str):
                    labels[dim].setdefault(" ".join(score.split()))
        return _rubric(study, dims, given, self.label, kinds, {d: list(found) for d, found in labels.items()})

    def records(self, study: str, rubric: Rubric) -> tuple[LongRating, ...]:
        return tuple(
            LongRating(
                study_id=key[0],
                item_id=key[1],
                rater=key[2],
                method=key[3],
                output_id=self.extra[key][0],
                position=self.extra[key][1],
                scores={d: scores[d][0] if d in scores else None for d in rubric.names},
                line=min(line for _, line in scores.values()),
                created_at=self.extra[key][2],
            )
            for key, scores in self.cells.items()
            if key[0] == study
        )


def _dimension(text: str, at: str, allowed: set[str] | None) -> str:
    try:
        name = check_name(text)
    except UserError as exc:
        raise UserError(f"{at}: {exc}") from None
    if allowed is not None and name not in allowed:
        raise UserError(f"{at}: unknown dimension {name!r} (the rubric has {', '.join(sorted(allowed))})")
    return name


def _whole(text: str, what: str, at: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{at}: {what} = {text!r} is not a number") from None
    if not value.is_integer():
        raise UserError(f"{at}: {what} = {text!r} is not a whole number")
    return int(value)


def _answer(d: Dimension, cell: int | str | None, at: str) -> int | str | None:
    """A cell of a question that is not a scale, as its type stores it."""
    try:
        return d.qtype.read(d, cell)
    except UserError as exc:
        raise UserError(f"{at}: {exc}") from None


def _score(text: str, dim: str, at: str) -> int | None:
    return None if text == "" else _whole(text, dim, at)


def _position(text: str, at: str) -> int | None:
    return None if text == "" else _whole(text, "position", at)


def _declared_scale(v: Mapping[str, str], at: str) -> tuple[int, int] | None:
    lo, hi = v["scale_min"], v["scale_max"]
    if not lo and not hi:
        return None
    if not lo or not hi:
        raise UserError(f"{at}: scale_min and scale_max go together (one of them is empty)")
    scale = (_whole(lo, "scale_min", at), _whole(hi, "scale_max", at))
    try:
        check_scale(*scale)
    except UserError as exc:
        raise UserError(f"{at}: {exc}") from None
    return scale


def _flag(text: str, at: str) -> bool | None:
    low = text.lower()
    if low == "":
        return None
    if low in TRUE:
        return True
    if low in FALSE:
        return False
    raise UserError(f"{at}: attention_passed = {text!r} is not true or false")


def _words(scale: tuple[int, int] | None) -> str:
    return "unset" if scale is None else f"{scale[0]}-{scale[1]}"


def _rubric(
    study: str,
    dims: Mapping[str, tuple[int, int] | None],
    given: Mapping[str, tuple[int, int]],
    label: str,
    kinds: Mapping[str, str],
    labels: Mapping[str, list[str]],
) -> Rubric:
    out = []
    for name, declared in dims.items():
        kind = kinds.get(name, DEFAULT_TYPE)
        if kind != DEFAULT_TYPE:
            if name in given:
                raise UserError(f"{label}: a scale was given for {name!r}, a {kind} question")
            try:
                found = {"name": name, "type": kind, **({"labels": labels[name]} if name in labels else {})}
                out.append(Dimension.from_dict(found))
            except UserError as exc:
                raise UserError(f"{label}, study {study!r}: {exc}") from None
            continue
        option = given.get(name, given.get(ALL))
        if option is not None and declared is not None and option != declared:
            raise UserError(
                f"{label}: {name} is on the scale {_words(declared)} in the file's scale_min/scale_max, "
                f"but {_words(option)} was given"
            )
        low, high = option or declared or DEFAULT_SCALE
        out.append(Dimension(name, low, high))
    try:
        return Rubric(tuple(out))
    except UserError as exc:
        raise UserError(f"{label}, study {study!r}: {exc}") from None
