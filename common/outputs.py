"""Output files a command line will write: checked before the long work, so that a path in a folder
that does not exist (or a path that is a folder) is one `error:` line at once, not a traceback after
the whole run has been thrown away."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UserError


def check_output_path(path: str | Path, option: str) -> Path:
    """`path` if a file can be written there, else a UserError that names `option` and the reason.

    Nothing is created: a run that fails later leaves no empty file behind."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise UserError(f"{option} {path}: is a folder; give a file name")
    folder = target.parent
    if not folder.is_dir():
        raise UserError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UserError(f"{option} {path}: no permission to write there")
    return target


def write_failure(path: str | Path, exc: OSError) -> UserError:
    """The one line for a write to `path` that failed (the disk filled up during the run...)."""
    return UserError(f"cannot write {path}: {exc.strerror or exc}")
