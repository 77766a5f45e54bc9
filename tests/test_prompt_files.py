"""arena.inputs.prompts.read_prompt_file: the one set of rules for prompt files (Organizer upload, studies
CLI, benchmark CLI)."""

from __future__ import annotations

import json

import pytest

from arena import studies
from arena.inputs.prompts import PromptSpec, read_prompt_file
from common.errors import UserError
from evaluation import benchmark


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def test_the_three_formats_give_the_same_prompts(tmp_path):
    csv_file = write(tmp_path, "p.csv", "prompt,scenario,language,raw\nHello,greet,en,no\n,,,\nOnce upon,story,,yes\n")
    jsonl = write(
        tmp_path,
        "p.jsonl",
        json.dumps({"prompt": "Hello", "scenario": "greet", "language": "en"})
        + "\n\n"
        + json.dumps({"prompt": "Once upon", "scenario": "story", "raw": "y"})
        + "\n",
    )
    assert (
        read_prompt_file(csv_file)
        == read_prompt_file(jsonl)
        == [PromptSpec("Hello", "greet", "en", False), PromptSpec("Once upon", "story", "", True)]
    )
    txt = write(tmp_path, "p.txt", "  Hello  \n\n\tOnce upon\n")
    assert read_prompt_file(txt) == [PromptSpec("Hello", "file"), PromptSpec("Once upon", "file")]


def test_bom_strings_control_characters_and_default_scenario(tmp_path):
    path = write(tmp_path, "p.jsonl", b"\xef\xbb\xbf" + json.dumps("plain\x07 text").encode() + b"\n")
    assert read_prompt_file(path) == [PromptSpec("plain text", "file")]
    assert read_prompt_file(path, default_scenario="") == [PromptSpec("plain text", "")]
    bom_csv = write(tmp_path, "b.csv", b"\xef\xbb\xbf prompt \nhi\n")
    assert [s.prompt for s in read_prompt_file(bom_csv)] == ["hi"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("a.md", "hello", "use a .csv"),
        ("a.csv", "text\nhello\n", "'prompt' column"),
        ("a.csv", "prompt\n", "holds no prompts"),
        ("a.txt", "\n  \n", "holds no prompts"),
        ("a.jsonl", '{"prompt": "ok"}\n{broken\n', "a.jsonl line 2: not valid JSON"),
        ("a.jsonl", '{"text": "x"}\n', "line 1: no 'prompt' field"),
        ("a.jsonl", "[1, 2]\n", "line 1: expected an object"),
        ("a.jsonl", '{"prompt": "  "}\n', "line 1: the prompt is empty"),
        ("a.txt", b"\xff\xfeh\x00i\x00", "not UTF-8"),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path, name, content, message):
    with pytest.raises(UserError, match=message):
        read_prompt_file(write(tmp_path, name, content))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(UserError, match="not found"):
        read_prompt_file(tmp_path / "gone.csv")


def test_studies_and_the_benchmark_read_files_the_same_way(tmp_path):
    path = write(tmp_path, "p.jsonl", json.dumps({"prompt": "A", "scenario": "s"}) + "\n" + json.dumps("B") + "\n")
    assert studies.parse_prompt_file is read_prompt_file
    specs = studies.parse_prompt_file(path)
    bench = benchmark.read_prompts(str(path))
    assert [(p.prompt, p.language, p.raw) for p in bench] == [(s.prompt, s.language, s.raw) for s in specs]
    # a prompt without a scenario: "file" in a study, its place in the benchmark
    assert [s.scenario for s in specs] == ["s", "file"] and [b.scenario for b in bench] == ["s", "prompt-2"]
    blank = write(tmp_path, "blank.csv", "prompt\n \nC\n")
    assert [b.prompt for b in benchmark.read_prompts(str(blank))] == ["C"]  # blank rows skipped, as in studies
