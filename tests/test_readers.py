"""arena/files/readers.py: one JSONL reader and one CSV reader for every file people give us, with the line
an error names. U+2028 (and the other Unicode line breaks) inside a prompt or a text is read, never
taken for the end of a line: JSON allows it raw inside a string. (The export's round trip of such a
text is tests/test_export.py.)"""

from __future__ import annotations

import json

import pytest

from arena.files import readers
from arena.inputs.prompts import PromptSpec, read_prompt_file
from common.errors import UserError
from evaluation.human.ratings import read_ratings
from evaluation.pairwise.votes import read_votes
from evaluation.tasks.__main__ import read_answers

BREAKS = "\u2028\u2029\u0085\x1c\x1d\x1e\x0b\x0c"  # what str.splitlines cuts at, besides \n and \r


def test_a_prompt_file_keeps_u2028_inside_a_prompt(tmp_path):
    path = tmp_path / "p.jsonl"
    prompt = "first half\u2028second half"
    path.write_text(json.dumps({"prompt": prompt}, ensure_ascii=False) + "\n", encoding="utf-8")
    assert read_prompt_file(path) == [PromptSpec(prompt, "file")]


def test_every_line_break_but_newline_stays_inside_a_json_line(tmp_path):
    path = tmp_path / "a.jsonl"
    texts = [f"a{ch}b" for ch in BREAKS]
    path.write_text(
        "".join(json.dumps({"task": "math-cylinder", "text": t}, ensure_ascii=False) + "\n" for t in texts),
        encoding="utf-8",
    )
    assert read_answers(str(path)) == [("math-cylinder", t) for t in texts]
    assert [n for n, _ in readers.read_jsonl(path)] == list(range(1, len(texts) + 1))


def test_a_txt_prompt_file_keeps_u2028_inside_its_line(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("one\u2028still one\r\ntwo\n", encoding="utf-8")
    assert [s.prompt for s in read_prompt_file(path)] == ["one\u2028still one", "two"]


def test_json_lines_number_lines_as_an_editor_does_and_name_the_bad_one(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('"a\u2028b"\r\n\n{broken\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"^x.jsonl line 3: not valid JSON"):
        list(readers.read_jsonl(path, "x.jsonl"))


def test_csv_rows_carry_the_line_their_record_starts_on():
    table = readers.csv_table('a,b\n1,"two\nlines"\n\n3,x\u2028y\n4\n', "t.csv")
    assert table.header == ["a", "b"]
    assert [(r.line, r.values) for r in table.rows] == [
        (2, {"a": "1", "b": "two\nlines"}),
        (5, {"a": "3", "b": "x\u2028y"}),
        (6, {"a": "4", "b": ""}),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "t.csv is empty"),
        (" \n\n", "t.csv is empty"),
        ("a,b\n1,2,3\n", "t.csv line 2: 3 cells, but the header names 2"),
    ],
)
def test_csv_refusals_name_the_file_and_line(text, message):
    with pytest.raises(UserError, match=message):
        readers.csv_table(text, "t.csv")


def test_missing_and_undecodable_files_say_so(tmp_path):
    with pytest.raises(UserError, match="cannot read gone.csv: not found"):
        readers.read_text(tmp_path / "gone.csv", "gone.csv")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\xff\xfe\x00x")
    with pytest.raises(UserError, match="not UTF-8"):
        readers.read_text(bad)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfa\r\n1\r\n")
    assert readers.read_text(bom) == "a\r\n1\r\n"


def test_votes_and_ratings_errors_name_the_files_line_past_a_multiline_cell(tmp_path):
    votes = tmp_path / "votes.csv"
    votes.write_text(
        'study_id,item_id,rater,system_a,system_b,winner,note\n1,1,r,A,B,a,"two\nlines"\n1,2,r,A,B,nobody,\n',
        encoding="utf-8",
    )
    with pytest.raises(UserError, match="line 4: winner = 'nobody'"):
        read_votes(str(votes))
    ratings = tmp_path / "ratings.csv"
    head = "study_id,item_id,output_id,method,rater,position,coherence,informativeness,naturalness,comment\n"
    ratings.write_text(head + '1,1,1,A,r,0,3,3,3,"a\nb"\n1,1,2,B,r,1,3,9,3,\n', encoding="utf-8")
    with pytest.raises(UserError, match="line 4: informativeness = '9'"):
        read_ratings(str(ratings))
