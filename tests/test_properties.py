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
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import decoders
from arena.errors import UserError
from arena.prompts import MAX_PROMPT_CHARS, clean_prompt, encode_prompt
from arena.runner import MAX_NEW_TOKENS_RANGE, RunRequest, validate_request

STATS: Counter = Counter()
FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def tally(name: str, outcome: str) -> None:
    STATS[f"{name}: tried"] += 1
    STATS[f"{name}: {outcome}"] += 1


@pytest.fixture(scope="module", autouse=True)
def write_stats(artifacts_dir):
    yield
    (artifacts_dir / "properties-stats.json").write_text(json.dumps(dict(sorted(STATS.items())), indent=1))


# ---- strategies -----------------------------------------------------------------------------

CONTROL = st.characters(categories=["Cc", "Cf", "Zl", "Zp"])  # NUL, ESC, BOM, RTL marks, separators
EMOJI = st.sampled_from(["😀", "👩‍👩‍👧", "🇨🇳", "🏳️‍🌈", "\U0001F9EA", "❤️"])
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


NOT_TEXT = st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=20), st.lists(st.text(max_size=3), max_size=3),
                     st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.booleans())
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
@given(prompt=st.one_of(PROMPT_TEXT, huge_text()), raw=st.booleans(),
       max_new=st.sampled_from([1, 8, 1024, 4096, 8191, 8192]))
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
def test_param_validate_value_in_range_or_user_error(method: str, param: decoders.Param, value: Any, near: float) -> None:
    candidates = [value]
    if param.minimum is not None and param.maximum is not None:
        # At and just beyond both ends of the range, where off-by-one checks fail.
        span = param.maximum - param.minimum
        candidates += [param.minimum, param.maximum, param.minimum - abs(near) * span / 10,
                       param.maximum + abs(near) * span / 10, str(param.maximum)]
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
    own_values = st.one_of(ANY_VALUE, st.floats(-5, 1100), st.integers(-5, 1100), st.sampled_from([c for p in dec.params for c in p.choices] or [""]))
    overrides = data.draw(st.one_of(
        st.dictionaries(own_names, own_values, max_size=4),  # the decoder's own parameters, values of every kind
        st.dictionaries(SETTING_NAMES, ANY_VALUE, max_size=3),  # anyone's parameter names
        st.none(), ANY_VALUE,
    ))
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

METHOD_NAMES = st.one_of(st.sampled_from(decoders.names()), st.text(max_size=8), st.sampled_from(["bs-4", " BS-4 ", "BS-4,BS-4", ""]))
VALID_METHODS = st.lists(st.sampled_from(decoders.names()), min_size=1, max_size=3, unique=True)
METHODS = st.one_of(VALID_METHODS, VALID_METHODS, VALID_METHODS,
                    st.lists(METHOD_NAMES, max_size=4), st.lists(METHOD_NAMES, max_size=4).map(",".join), st.none(), NOT_TEXT)
SETTINGS = st.one_of(
    st.dictionaries(METHOD_NAMES, st.one_of(st.dictionaries(SETTING_NAMES, ANY_VALUE, max_size=3), ANY_VALUE), max_size=3),
    ANY_VALUE,
)


@FAST
@given(prompt=PROMPT_TEXT, methods=METHODS, settings_=st.one_of(st.just({}), st.just({}), SETTINGS),
       max_new=st.one_of(st.integers(-2, 1030), st.integers(-2, 1030), ANY_VALUE),
       seed=st.one_of(st.integers(-2, 2**64), st.none(), ANY_VALUE), raw=ANY_VALUE)
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
