"""Bad input, generated: every function that takes user input either returns a correct result or
raises `UserError` (whose message is shown to the user). Anything else is a crash, and fails.

Each property counts the inputs it tried and how they ended; the counts are written to
artifacts/properties-stats.json at the end of the module.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import decoders
from arena.inputs.prompts import MAX_PROMPT_CHARS, clean_prompt, encode_prompt
from arena.rating.study_spec import StudySpec
from arena.runs.requests import MAX_NEW_TOKENS_RANGE, RunRequest, validate_request
from common.errors import UserError

STATS: Counter = Counter()
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def tally(name: str, outcome: str) -> None:
    STATS[f"{name}: tried"] += 1
    STATS[f"{name}: {outcome}"] += 1


@pytest.fixture(scope="module", autouse=True)
def write_stats(artifacts_dir):
    yield
    (artifacts_dir / "properties-stats.json").write_text(json.dumps(dict(sorted(STATS.items())), indent=1))


# ---- strategies -----------------------------------------------------------------------------

CONTROL = st.characters(categories=["Cc", "Cf", "Zl", "Zp"])  # NUL, ESC, BOM, RTL marks, separators
EMOJI = st.sampled_from(["😀", "👩‍👩‍👧", "🇨🇳", "🏳️‍🌈", "\U0001f9ea", "❤️"])
SCRIPTS = st.sampled_from(["量子计算", "ありがとう", "مرحبا", "שלום", "Привет", "नमस्ते", "e\u0301", "ﷺ", "𝔘𝔫𝔦"])
SURROGATE = st.sampled_from(["\ud800", "\udfff", "a\udc80b"])  # lone surrogates from a broken client
PIECE = st.one_of(st.text(max_size=30), CONTROL, EMOJI, SCRIPTS, SURROGATE, st.just(" "), st.just("\n\t"))
PROMPT_TEXT = st.lists(PIECE, max_size=25).map("".join)


@st.composite
def huge_text(draw) -> str:
    """Texts around the 100k-character limit, built by repetition so generation stays cheap."""
    unit = draw(st.sampled_from(["a", "量", "😀", "ab\n", "\x00", " "]))
    length = draw(st.sampled_from([MAX_PROMPT_CHARS - 1, MAX_PROMPT_CHARS, MAX_PROMPT_CHARS + 1, 3 * MAX_PROMPT_CHARS]))
    return (unit * (length // len(unit) + 1))[:length]


NOT_TEXT = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.binary(max_size=20),
    st.lists(st.text(max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.booleans(),
)
ANY_VALUE = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([10**400, -(10**400), 2**63, 2**63 - 1, -1, 0, 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.05, 1.0, 2.0, 2.0000001, 1e308, -0.0, 5e-324]),
    st.text(max_size=12),
    st.sampled_from(["1", "0.5", " 4 ", "1e3", "nan", "inf", "-inf", "true", "False", "４", "0x10", "1_000", ""]),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _expected_clean(text: str) -> str:
    return "".join(ch for ch in text if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs"))


# ---- prompts --------------------------------------------------------------------------------


@FAST
@given(st.one_of(PROMPT_TEXT, NOT_TEXT))
def test_clean_prompt_text_or_user_error(prompt: Any) -> None:
    try:
        out = clean_prompt(prompt)
    except UserError as exc:
        tally("clean_prompt", "UserError")
        assert str(exc)
        if isinstance(prompt, str):
            assert not _expected_clean(prompt).strip() or len(prompt) > MAX_PROMPT_CHARS
        return
    tally("clean_prompt", "ok")
    assert isinstance(prompt, str)
    assert out == _expected_clean(prompt)
    assert out.strip()
    assert not any(unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\t\n" for ch in out)


@SLOW
@given(huge_text())
def test_clean_prompt_at_the_length_limit(prompt: str) -> None:
    try:
        out = clean_prompt(prompt)
    except UserError as exc:
        tally("clean_prompt 100k", "UserError")
        assert len(prompt) > MAX_PROMPT_CHARS or not _expected_clean(prompt).strip()
        assert "limit" in str(exc) or "empty" in str(exc)
        return
    tally("clean_prompt 100k", "ok")
    assert len(prompt) <= MAX_PROMPT_CHARS and out == _expected_clean(prompt)


@SLOW
@given(
    prompt=st.one_of(PROMPT_TEXT, huge_text()),
    raw=st.booleans(),
    max_new=st.sampled_from([1, 8, 1024, 4096, 8191, 8192]),
)
def test_encode_prompt_fits_the_context_or_user_error(lm, prompt: str, raw: bool, max_new: int) -> None:
    try:
        ids = encode_prompt(lm.tokenizer, prompt, raw, lm.device, lm.context_length, max_new)
    except UserError as exc:
        tally("encode_prompt", "UserError")
        assert str(exc)
        return
    tally("encode_prompt", "ok")
    assert ids.dim() == 2 and ids.shape[0] == 1 and ids.shape[1] >= 1
    assert ids.shape[1] <= lm.context_length - max_new
    assert int(ids.max()) < lm.logits_size and int(ids.min()) >= 0


# ---- decoder parameters ----------------------------------------------------------------------

ALL_PARAMS = [(d.name, p) for d in decoders.all_decoders() for p in d.params]


def _check_param_result(p: decoders.Param, out: Any) -> None:
    if p.kind == "bool":
        assert isinstance(out, bool)
    elif p.kind == "choice":
        assert out in p.choices
    elif p.kind == "text":
        assert isinstance(out, str) and (p.maximum is None or len(out) <= p.maximum)
        assert p.normalize is None or p.normalize(out) == out  # canonical: resolving again changes nothing
    else:
        assert isinstance(out, int if p.kind == "int" else float) and not isinstance(out, bool)
        assert math.isfinite(out)
        if p.minimum is not None:
            assert out >= p.minimum
        if p.maximum is not None:
            assert out <= p.maximum


@pytest.mark.parametrize("method,param", ALL_PARAMS, ids=[f"{m}.{p.name}" for m, p in ALL_PARAMS])
@settings(max_examples=60, deadline=None)
@given(value=ANY_VALUE, near=st.floats(-3, 3))
def test_param_validate_value_in_range_or_user_error(
    method: str, param: decoders.Param, value: Any, near: float
) -> None:
    candidates = [value]
    if param.minimum is not None and param.maximum is not None:
        # At and just beyond both ends of the range, where off-by-one checks fail.
        span = param.maximum - param.minimum
        candidates += [
            param.minimum,
            param.maximum,
            param.minimum - abs(near) * span / 10,
            param.maximum + abs(near) * span / 10,
            str(param.maximum),
        ]
    for v in candidates:
        try:
            out = param.validate(v)
        except UserError as exc:
            tally("Param.validate", "UserError")
            assert param.name in str(exc)
            continue
        tally("Param.validate", "ok")
        _check_param_result(param, out)


SETTING_NAMES = st.one_of(st.sampled_from(sorted({p.name for _, p in ALL_PARAMS})), st.text(max_size=8))


@pytest.mark.parametrize("method", decoders.names())
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_decoder_resolve_complete_settings_or_user_error(method: str, data: st.DataObject) -> None:
    dec = decoders.get(method)
    own_names = st.sampled_from([p.name for p in dec.params]) if dec.params else SETTING_NAMES
    own_values = st.one_of(
        ANY_VALUE,
        st.floats(-5, 1100),
        st.integers(-5, 1100),
        st.sampled_from([c for p in dec.params for c in p.choices] or [""]),
    )
    overrides = data.draw(
        st.one_of(
            st.dictionaries(own_names, own_values, max_size=4),  # the decoder's own parameters, values of every kind
            st.dictionaries(SETTING_NAMES, ANY_VALUE, max_size=3),  # anyone's parameter names
            st.none(),
            ANY_VALUE,
        )
    )
    try:
        out = dec.resolve(overrides)
    except UserError as exc:
        tally("Decoder.resolve", "UserError")
        assert str(exc)
        return
    tally("Decoder.resolve", "ok")
    params = {p.name: p for p in dec.params}
    assert set(out) == set(params)
    for name, value in out.items():
        _check_param_result(params[name], value)
    for name, value in (overrides or {}).items():
        assert out[name] == params[name].validate(value)


# ---- run requests ---------------------------------------------------------------------------

METHOD_NAMES = st.one_of(
    st.sampled_from(decoders.names()), st.text(max_size=8), st.sampled_from(["bs-4", " BS-4 ", "BS-4,BS-4", ""])
)
VALID_METHODS = st.lists(st.sampled_from(decoders.names()), min_size=1, max_size=3, unique=True)
METHODS = st.one_of(
    VALID_METHODS,
    VALID_METHODS,
    VALID_METHODS,
    st.lists(METHOD_NAMES, max_size=4),
    st.lists(METHOD_NAMES, max_size=4).map(",".join),
    st.none(),
    NOT_TEXT,
)
SETTINGS = st.one_of(
    st.dictionaries(
        METHOD_NAMES, st.one_of(st.dictionaries(SETTING_NAMES, ANY_VALUE, max_size=3), ANY_VALUE), max_size=3
    ),
    ANY_VALUE,
)


@FAST
@given(
    prompt=PROMPT_TEXT,
    methods=METHODS,
    settings_=st.one_of(st.just({}), st.just({}), SETTINGS),
    max_new=st.one_of(st.integers(-2, 1030), st.integers(-2, 1030), ANY_VALUE),
    seed=st.one_of(st.integers(-2, 2**64), st.none(), ANY_VALUE),
    raw=ANY_VALUE,
)
def test_validate_request_normalised_or_user_error(prompt, methods, settings_, max_new, seed, raw) -> None:
    req = RunRequest(prompt, methods, settings_, max_new, seed, raw)
    try:
        out = validate_request(req)
    except UserError as exc:
        tally("validate_request", "UserError")
        assert str(exc)
        return
    tally("validate_request", "ok")
    assert out.methods and all(m in decoders.names() for m in out.methods)
    assert len(set(out.methods)) == len(out.methods)
    lo, hi = MAX_NEW_TOKENS_RANGE
    assert isinstance(out.max_new_tokens, int) and lo <= out.max_new_tokens <= hi
    assert out.seed is None or (isinstance(out.seed, int) and 0 <= out.seed < 2**63)
    assert set(out.settings) <= set(out.methods)
    for m in out.methods:
        decoders.get(m).resolve(out.settings.get(m))


# ---- rating submissions (blind.submit: what the Rate tab and its API route call) ----------------

import csv  # noqa: E402
import io  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from arena import studies  # noqa: E402
from arena.files import export  # noqa: E402
from arena.rating import blind  # noqa: E402
from arena.store import Store  # noqa: E402
from tests.support.stores import open_store, pg_url  # noqa: E402

BACKENDS = ["sqlite"] + (["postgresql"] if pg_url() else [])
LABEL_KEYS = st.one_of(st.sampled_from(["A", "B", "C", "D", "a", "", " A"]), st.text(max_size=3))
SCORE_VALUE = st.one_of(st.integers(1, 5), st.integers(1, 5), st.sampled_from(["4", " 5 ", 3.0, "3.0"]), ANY_VALUE)
DIMS = st.sampled_from(list(blind.DIMENSIONS) + ["coherance", ""])
COMMENT = st.one_of(st.none(), PROMPT_TEXT, huge_text(), ANY_VALUE)


@st.composite
def submissions(draw):
    """Half well-formed score sheets for A, B, C (scores as ints, "4", 3.0); half damaged."""
    sheet: dict[Any, Any] = {
        label: {
            d: draw(st.one_of(st.integers(1, 5), st.sampled_from(["4", " 5 ", 3.0, "3.0"]))) for d in blind.DIMENSIONS
        }
        for label in "ABC"
    }
    comments: Any = draw(
        st.one_of(st.none(), st.dictionaries(st.sampled_from("ABC"), st.one_of(st.none(), PROMPT_TEXT), max_size=3))
    )
    if draw(st.booleans()):
        damage = draw(st.sampled_from(["drop-label", "bad-score", "bad-dim", "extra-label", "not-a-sheet", "comments"]))
        if damage == "drop-label":
            sheet.pop(draw(st.sampled_from("ABC")))
        elif damage == "bad-score":
            sheet[draw(st.sampled_from("ABC"))][draw(st.sampled_from(blind.DIMENSIONS))] = draw(ANY_VALUE)
        elif damage == "bad-dim":
            sheet[draw(st.sampled_from("ABC"))] = draw(
                st.one_of(ANY_VALUE, st.dictionaries(DIMS, SCORE_VALUE, max_size=3))
            )
        elif damage == "extra-label":
            sheet[draw(LABEL_KEYS)] = draw(st.one_of(ANY_VALUE, st.dictionaries(DIMS, SCORE_VALUE, max_size=3)))
        elif damage == "not-a-sheet":
            sheet = draw(ANY_VALUE)
        else:
            comments = draw(st.one_of(ANY_VALUE, st.dictionaries(LABEL_KEYS, COMMENT, min_size=1, max_size=3)))
    return sheet, comments


@pytest.fixture(scope="module", params=BACKENDS)
def rating_world(request, tmp_path_factory):
    store, close = open_store(request.param, tmp_path_factory.mktemp("props-store"))
    sid, _ = seed_one_item(store)
    view, _ = blind.open_item(store, "prop-rater", sid)
    yield store, view.item, request.param
    close()


def seed_one_item(store: Store) -> tuple[int, int]:
    sid = store.create_study("Property study", model="seeded", methods=["BS-4", "TS-Temp", "TS-Tilted"])
    [item] = store.add_items(sid, [{"prompt": "a prompt"}])
    for m in ("BS-4", "TS-Temp", "TS-Tilted"):
        store.add_output(item, m, 0, text=f"text {m}", settings={}, seed=0, model="seeded", new_tokens=1)
    return sid, item


def _mine(store: Store) -> list[tuple]:
    frame = store.ratings_frame()
    rows = frame[frame["rater"] == "prop-rater"]
    return sorted(zip(rows.output_id, rows.coherence, rows.informativeness, rows.naturalness, rows.comment.fillna("")))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    sub=submissions(),
    rater=st.one_of(st.just("prop-rater"), st.just(" prop-rater "), st.just("prop-rater"), PROMPT_TEXT, NOT_TEXT),
    item=st.one_of(st.just(None), st.just(None), st.text(max_size=12), NOT_TEXT),
)
def test_rating_submit_all_or_nothing(rating_world, sub, rater, item) -> None:
    store, public_id, backend = rating_world
    scores, comments = sub
    item = public_id if item is None else item
    before = _mine(store)
    try:
        blind.submit(store, rater, item, scores, comments)
    except UserError as exc:
        tally(f"rating submit ({backend})", "UserError")
        assert str(exc)
        assert _mine(store) == before, "a refused submit changed stored ratings"
        return
    tally(f"rating submit ({backend})", "ok")
    after = _mine(store)
    assert len(after) == 3, "one rating per response, re-submits update"
    from arena.store import check_score

    assert {tuple(r[1:4]) for r in after} == {
        tuple(check_score(d, scores[lab][d]) for d in blind.DIMENSIONS) for lab in scores
    }


# ---- prompt files for a study (CSV / JSONL upload) ----------------------------------------------

ENCODABLE = st.lists(
    st.one_of(st.text(st.characters(exclude_categories=["Cs"]), max_size=20), CONTROL, EMOJI, SCRIPTS),
    min_size=1,
    max_size=6,
).map("".join)
CELL = st.one_of(
    ENCODABLE, ENCODABLE, PROMPT_TEXT, st.sampled_from(["", " ", "true", "0", "zh", "量子", '"quoted, comma"', "a\nb"])
)
HEADER = st.one_of(
    st.lists(st.sampled_from(["scenario", "language", "raw", "extra", "", "prompt"]), max_size=3).map(
        lambda h: ["prompt"] + h
    ),
    st.lists(st.sampled_from(["prompt", "Prompt", " prompt ", "scenario", "language", "raw", "extra", ""]), max_size=5),
)
JSON_RECORD = st.one_of(
    st.fixed_dictionaries(
        {"prompt": st.one_of(PROMPT_TEXT, ANY_VALUE)},
        optional={"scenario": ANY_VALUE, "language": ANY_VALUE, "raw": ANY_VALUE},
    ),
    PROMPT_TEXT,
    ANY_VALUE,
)


@st.composite
def prompt_files(draw) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["csv", "jsonl", "txt", "csv-bytes"]))
    if kind in ("csv", "csv-bytes"):
        header = draw(HEADER)
        rows = draw(st.lists(st.lists(CELL, min_size=0, max_size=len(header) + 2), max_size=6))
        if rows and draw(st.booleans()):
            rows.append(rows[0])  # a duplicate row
        buf = io.StringIO()
        writer = csv.writer(buf)
        if header:
            writer.writerow(header)
        writer.writerows(rows)
        data = buf.getvalue().encode("utf-8", "surrogatepass")
        if kind == "csv-bytes":
            data = draw(st.sampled_from([b"\xef\xbb\xbf", b"", b"\xff\xfe"])) + data
        return "prompts.csv", data
    if kind == "jsonl":
        lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in draw(st.lists(JSON_RECORD, max_size=6))]
        if draw(st.integers(0, 4)) == 0:
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["{", "not json", "[1,", "\x00"])))
        return "prompts.jsonl", "\n".join(lines).encode("utf-8", "surrogatepass")
    return "prompts.txt", b"prompt\nhello"


def _file_beside_fresh_store(tmp_path_factory, name: str, data: bytes) -> tuple[Path, Store]:
    """A new folder per hypothesis example (function-scoped tmp_path is shared across examples)
    holding the file and an empty SQLite store."""
    folder = Path(tempfile.mkdtemp(dir=tmp_path_factory.getbasetemp()))
    path = folder / name
    path.write_bytes(data)
    return path, Store(f"sqlite:///{folder / 'arena.db'}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(upload=prompt_files())
def test_prompt_file_import_creates_whole_study_or_user_error(tmp_path_factory, upload) -> None:
    name, data = upload
    path, store = _file_beside_fresh_store(tmp_path_factory, name, data)
    try:
        try:
            specs = studies.parse_prompt_file(path)
            sid = studies.create_study(store, StudySpec("Upload study", specs, max_new_tokens=4))
        except UserError as exc:
            tally("prompt file import", "UserError")
            assert str(exc)
            assert store.list_studies() == [], "a refused upload left a study behind"
            return
        tally("prompt file import", "ok")
        stored = [i.prompt for i in store.items(sid)]
        assert stored == [s.prompt for s in specs] and all(p == clean_prompt(p) for p in stored)
    finally:
        store.dispose()


# ---- ratings import (an organizer uploads an export) ---------------------------------------------


@pytest.fixture(scope="module")
def export_rows_sample(tmp_path_factory) -> list[dict[str, Any]]:
    """A real export: one study, one item, three outputs, two raters."""
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('export-src') / 'arena.db'}")
    sid, _ = seed_one_item(store)
    for rater, base in (("ann", 1), ("bo", 3)):
        view, _ = blind.open_item(store, rater, sid)
        blind.submit(
            store,
            rater,
            view.item,
            {r.label: {d: base + k % 3 for k, d in enumerate(blind.DIMENSIONS)} for r in view.responses},
            {"A": f"note by {rater}"},
        )
    buf = io.StringIO()
    export.export(store, "jsonl", buf)
    store.dispose()
    return [json.loads(line) for line in buf.getvalue().splitlines()]


COLUMNS = st.sampled_from(list(export.EXPORT_COLUMNS))


@st.composite
def damaged_exports(draw, rows: list[dict[str, Any]]) -> tuple[str, bytes, list[dict[str, Any]]]:
    rows = [dict(r) for r in rows]
    for _ in range(draw(st.integers(0, 3))):
        action = draw(
            st.sampled_from(["wrong-type", "drop-column", "duplicate", "blank", "score", "json", "text-type"])
        )
        if not rows:
            break
        k = draw(st.integers(0, len(rows) - 1))
        if action == "wrong-type":
            rows[k][draw(COLUMNS)] = draw(ANY_VALUE)
        elif action == "drop-column":
            column = draw(COLUMNS)
            for r in rows:
                r.pop(column, None)
        elif action == "duplicate":
            rows.append(dict(rows[k]))
        elif action == "blank":
            rows[k][draw(COLUMNS)] = ""
        elif action == "json":  # columns that hold JSON documents
            rows[k][draw(st.sampled_from(["settings", "study_methods", "study_settings"]))] = draw(
                st.sampled_from(["{", "not json", "[1,", "null", "42", '"text"', "[]", "{}"])
            )
        elif action == "text-type":  # text columns given numbers, lists or objects (JSONL keeps types)
            rows[k][
                draw(st.sampled_from(["prompt", "text", "comment", "rater", "scenario", "model", "study_kind"]))
            ] = draw(
                st.one_of(
                    st.integers(),
                    st.lists(st.integers(), max_size=2),
                    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
                    st.booleans(),
                )
            )
        else:
            rows[k][draw(st.sampled_from(list(blind.DIMENSIONS)))] = draw(
                st.sampled_from([0, 6, "4.5", "x", None, "5"])
            )
    fmt = draw(st.sampled_from(["csv", "jsonl"]))
    if fmt == "jsonl":
        data = "\n".join(json.dumps(r, ensure_ascii=False, default=str) for r in rows)
    else:
        columns = list(dict.fromkeys(c for r in rows for c in r))
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        data = buf.getvalue()
    return f"ratings.{fmt}", data.encode("utf-8", "surrogatepass"), rows


def _table_counts(store: Store) -> dict[str, int]:
    from sqlalchemy import func, select

    from arena.store.schema import items, outputs, raters, ratings
    from arena.store.schema import studies as studies_t

    with store.read() as conn:
        return {
            t.name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
            for t in (studies_t, items, outputs, raters, ratings)
        }


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_ratings_import_all_or_nothing(tmp_path_factory, export_rows_sample, data) -> None:
    name, payload, rows = data.draw(damaged_exports(export_rows_sample))
    path, store = _file_beside_fresh_store(tmp_path_factory, name, payload)
    try:
        try:
            export.import_file(store, path)
        except UserError as exc:
            tally("ratings import", "UserError")
            assert str(exc)
            counts = _table_counts(store)
            assert not any(counts.values()), f"a refused import left rows behind: {counts}"
            return
        tally("ratings import", "ok")
        first = _table_counts(store)
        parsed = export.read_export(path)  # as imported: CSV turns every value into text
        keys = {(r["rater"], r["item_public_id"], r["method"], r["sample_index"] or 0) for r in parsed}
        assert first["ratings"] == len(keys), "each (rater, output) stored once, duplicates merged"
        export.import_file(store, path)
        assert _table_counts(store) == first, "importing the same file twice changed the store"
        frame = store.ratings_frame()
        assert frame[list(blind.DIMENSIONS)].isin([1, 2, 3, 4, 5]).all().all()
    finally:
        store.dispose()
