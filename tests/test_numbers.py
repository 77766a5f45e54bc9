"""arena.inputs.numbers: the one whole-number rule for sliders, number boxes, CLI flags, env and files."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pytest

from arena.inputs.numbers import cli_whole, parse_whole, study_id, whole_number
from common.errors import UserError


@pytest.mark.parametrize(
    "value, expected",
    [
        (4, 4),
        (4.0, 4),
        ("4", 4),
        (" 4 ", 4),
        ("4.0", 4),
        ("-3", -3),
        (np.int64(7), 7),
        (np.float32(2.0), 2),
        ("123456789012345678901234567890", 123456789012345678901234567890),  # exact, not through a float
    ],
)
def test_whole_numbers_are_accepted(value, expected):
    assert parse_whole(value) == expected and type(parse_whole(value)) is int


@pytest.mark.parametrize(
    "value", [True, False, None, 4.5, "4.5", "", "  ", "four", math.nan, math.inf, "inf", [4], {"n": 4}, b"4"]
)
def test_everything_else_is_refused(value):
    with pytest.raises(ValueError):
        parse_whole(value)


def test_whole_number_names_the_field_and_the_range():
    assert whole_number("16", "max_new_tokens", 1, 2048) == 16
    with pytest.raises(UserError, match=r"^max_new_tokens must be a whole number, got 'many'$"):
        whole_number("many", "max_new_tokens", 1, 2048)
    with pytest.raises(UserError, match=r"^max_new_tokens must be between 1 and 2048, got 0$"):
        whole_number(0, "max_new_tokens", 1, 2048)
    with pytest.raises(UserError, match="at least 1"):
        whole_number(0, "workers", lo=1)
    with pytest.raises(UserError, match="at most 3"):
        whole_number(4, "tries", hi=3)
    assert isinstance(UserError("x"), ValueError)  # callers catching ValueError still catch these


def test_study_ids_out_of_range_are_no_study():
    assert study_id("12") == 12 and study_id(12.0) == 12
    for bad in (None, "x; DROP TABLE studies", 2**63, -(2**63) - 1, 1.5):
        with pytest.raises(UserError, match="choose a study"):
            study_id(bad)


def test_command_line_flags_follow_the_same_rule(capsys):
    p = argparse.ArgumentParser(prog="x")
    p.add_argument("--n", type=cli_whole)
    assert p.parse_args(["--n", "4.0"]).n == 4
    with pytest.raises(SystemExit) as exc:
        p.parse_args(["--n", "4.5"])
    assert exc.value.code == 2 and "invalid whole number value: '4.5'" in capsys.readouterr().err
