"""Every command line either works or prints one `error:` line and exits 2, with nothing stored half-way
(issue 36: 14 tracebacks, half-stored drafts and silent accepts through the CLIs on main b69a925).

One table: each case runs a CLI's `main` in this process with its arguments (paths under a fresh
folder), expects exit code 2 and a last line of stderr that starts with "error:" and names the
problem, and then checks what must not have happened (a draft stored, a file created, a model loaded).
The cases that need separate programs (two imports at once) or a small full disk have their own tests.
"""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.files import export as export_cli
from arena.inputs.prompts import read_prompt_file
from arena.store import Store
from arena.studies import __main__ as studies_cli
from decoders import __main__ as decoders_cli
from evaluation import benchmark as benchmark_cli
from evaluation.human import cli as human_cli
from evaluation.pairwise import cli as pairwise_cli
from evaluation.tasks import __main__ as tasks_cli
from tests.support.seeding import rate_every_output, seed_study

ROOT = Path(__file__).resolve().parents[1]

CLIS: dict[str, Callable[[list[str]], int]] = {
    "arena.studies": studies_cli.main,
    "arena.files.export": export_cli.main,
    "evaluation.tasks": tasks_cli.main,
    "evaluation.benchmark": benchmark_cli.main,
    "evaluation.human": human_cli.main,
    "evaluation.pairwise": pairwise_cli.main,
    "decoders": decoders_cli.main,
}

FILES = {
    "p.txt": b"one\ntwo\n",
    "unterminated.csv": b'prompt\n"unterminated\nsecond\n',
    "raw-maybe.jsonl": b'{"prompt": "hi", "raw": "maybe"}\n',
    "nul.txt": b"first\nhello\x00world\n",
    "not-a-db.db": b"this is not a database\n",
    "header-only.csv": b"",  # filled in by `folder`: a real export of a store with no ratings
}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the socket is: nothing listens there


@dataclass
class Case:
    id: str
    cli: str
    args: list[str]  # "{d}" is the case's folder
    says: str  # in the error line
    stdin: bytes | None = None
    nothing: list[str] = field(default_factory=list)  # files under {d} that must not exist afterwards
    no_study: bool = False  # {d}/s.db, if it exists, holds no study afterwards


CASES = [
    # One wrapper for database problems, at every CLI that opens the store.
    Case("unreachable", "arena.studies", ["close", "--study", "1", "--database", "postgresql://u:p@127.0.0.1:{port}/x"], "cannot be reached"),
    Case("db-is-folder", "arena.files.export", ["--database", "sqlite:///{d}/folder"], "is a folder"),
    Case("db-is-folder-studies", "arena.studies", ["close", "--study", "1", "--database", "sqlite:///{d}/folder"], "is a folder"),
    Case("db-folder-is-a-file", "arena.files.export", ["--database", "sqlite:///{d}/not-a-db.db/arena.db"], "part of its path is a file"),
    Case("db-under-proc", "arena.files.export", ["--database", "sqlite:////proc/arena-test.db"], "cannot be opened"),
    Case("db-not-a-db", "arena.studies", ["close", "--study", "1", "--database", "sqlite:///{d}/not-a-db.db"], "not a SQLite database"),
    Case("mysql", "arena.files.export", ["--database", "mysql://u:p@localhost/x"], "SQLite or PostgreSQL"),
    Case("read-only", "arena.files.export", ["--database", "sqlite:///file:{d}/filled.db?mode=ro&uri=true", "--import", "{d}/filled.csv"], "is read-only"),
    # Output paths checked before the work.
    Case("export-out-missing-folder", "arena.files.export", ["--database", "sqlite:///{d}/s.db", "-o", "{d}/missing/out.csv"], "does not exist"),
    Case("export-out-is-folder", "arena.files.export", ["--database", "sqlite:///{d}/s.db", "-o", "{d}/out.csv"], "is a folder"),
    Case("tasks-prompts-missing-folder", "evaluation.tasks", ["--write-prompts", "{d}/missing/t.jsonl"], "does not exist"),
    Case("tasks-prompts-is-folder", "evaluation.tasks", ["--write-prompts", "{d}/folder"], "is a folder"),
    Case("benchmark-json-missing-folder", "evaluation.benchmark", ["--json", "{d}/missing/b.json", "--limit", "1", "--trials", "1"], "does not exist"),
    # Inputs that are folders or not text.
    Case("human-folder", "evaluation.human", ["{d}/folder"], "Is a directory"),
    Case("pairwise-folder", "evaluation.pairwise", ["{d}/folder"], "Is a directory"),
    Case("stdin-not-utf8", "decoders", ["-"], "not UTF-8", stdin=b"caf\xe9 au lait\n"),
    # Half-stored and silent accepts.
    Case("batch-size-abc", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/p.txt", "--batch-size", "abc"], "batch size", no_study=True),
    Case("unterminated-quote", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/unterminated.csv"], "line 2", no_study=True),
    Case("raw-maybe", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/raw-maybe.jsonl"], "'maybe'", no_study=True),
    Case("nul-in-line", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/nul.txt"], "line 2", no_study=True),
    Case("unknown-method", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/p.txt", "--methods", "NOPE"], "NOPE", no_study=True),
    Case("method-in-name", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "BS-4 pilot", "--prompts", "{d}/p.txt"], "leave method names out", no_study=True),
    Case("max-new-tokens-0", "arena.studies", ["create", "--database", "sqlite:///{d}/s.db", "--name", "pilot", "--prompts", "{d}/p.txt", "--max-new-tokens", "0"], "max new tokens", no_study=True),
    Case("no-such-study", "arena.files.export", ["--database", "sqlite:///{d}/s.db", "--study", "999", "-o", "{d}/999.csv"], "no study #999", nothing=["999.csv"]),
    Case("empty-import", "arena.files.export", ["--database", "sqlite:///{d}/s.db", "--import", "{d}/header-only.csv"], "no ratings"),
]  # fmt: skip


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder").mkdir()
    (tmp_path / "out.csv").mkdir()
    Store(f"sqlite:///{tmp_path / 'empty.db'}").dispose()
    assert (
        export_cli.main(["--database", f"sqlite:///{tmp_path / 'empty.db'}", "-o", str(tmp_path / "header-only.csv")])
        == 0
    )
    filled = Store(f"sqlite:///{tmp_path / 'filled.db'}")
    sid, [item] = seed_study(filled, "seeded", ["a prompt"], [{"BS-4": "one", "TS-Temp": "two"}])
    rate_every_output(filled, {o.method: o.id for o in filled.outputs_for_item(item)}, [("ana", 2)])
    filled.set_study_state(sid, "closed", allowed_from=("open",))  # an open study's export is sealed: no import
    filled.dispose()
    assert (
        export_cli.main(["--database", f"sqlite:///{tmp_path / 'filled.db'}", "-o", str(tmp_path / "filled.csv")]) == 0
    )
    return tmp_path


def no_model(*_args, **_kwargs):
    raise AssertionError("a model was loaded for a command that its arguments already refuse")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_one_error_line(case: Case, folder: Path, capsys, monkeypatch):
    for module in (studies_cli, benchmark_cli):  # checked before any model is loaded: no model may be
        monkeypatch.setattr(module, "load_model", no_model)
        monkeypatch.setattr(module, "get_default_model", no_model)
    if case.stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(case.stdin)))
    args = [a.format(d=folder, port=closed_port()) for a in case.args]
    capsys.readouterr()
    code = CLIS[case.cli](args)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, err[-2000:]
    assert lines and lines[-1].startswith("error: "), err[-2000:]
    assert case.says in lines[-1], lines[-1]
    assert "Traceback" not in err
    for name in case.nothing:
        assert not (folder / name).exists(), f"{name} was written although the command was refused"
    if case.no_study and (folder / "s.db").exists():
        assert Store(f"sqlite:///{folder / 's.db'}").list_studies() == [], "a draft was stored by a refused command"


def test_line_separator_inside_a_prompt_is_kept(tmp_path: Path):
    """U+2028 inside a prompt is part of it, in a prompt file of every kind, as the export reader reads it."""
    for name, data in {
        "p.txt": "a\u2028b\nsecond\n",
        "p.jsonl": '{"prompt": "a\u2028b"}\n{"prompt": "second"}\n',
        "p.csv": 'prompt\n"a\u2028b"\nsecond\n',
    }.items():
        (tmp_path / name).write_text(data, encoding="utf-8")
        assert [s.prompt for s in read_prompt_file(tmp_path / name)] == ["a\u2028b", "second"], name


def test_two_imports_into_a_fresh_sqlite_file_at_once(folder: Path):
    """Both programs create the schema of the same new file; the second waits for the first's write
    lock instead of failing with "database is locked"."""
    url = f"sqlite:///{folder / 'fresh.db'}"
    cmd = [sys.executable, "-m", "arena.files.export", "--database", url, "--import", str(folder / "filled.csv")]
    runs = [subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    done = [(p.wait(timeout=300), p.stderr.read() if p.stderr else "") for p in runs]
    assert all(code == 0 for code, _ in done), done
    store = Store(url)
    assert len(store.list_studies()) == 1 and "Traceback" not in "".join(err for _, err in done)


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 2 MB tmpfs (root only: CI runs as root); skipped where it cannot be mounted."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {made.stderr.decode(errors='replace').strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_is_named_as_such(folder: Path, small_disk: Path, capsys):
    """On a full disk the store refuses at start (the app's check) and a write names the disk, not the network."""
    url = f"sqlite:///{small_disk / 'arena.db'}"
    store = Store(url)
    assert store.write_problem() is None
    filler = small_disk / "filler"
    with open(filler, "wb", buffering=0) as fh:  # unbuffered: nothing left to flush (and fail) at close
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    assert "full disk" in (store.write_problem() or ""), store.write_problem()
    capsys.readouterr()
    assert export_cli.main(["--database", url, "--import", str(folder / "filled.csv")]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert "full disk" in line and "cannot be reached" not in line, line
    filler.unlink()
    shutil.rmtree(small_disk / "unused", ignore_errors=True)
    assert store.write_problem() is None  # space freed: the store writes again
    store.dispose()
