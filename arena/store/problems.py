"""What is wrong with a ratings database, in words: read-only, full, not a database, cannot be opened,
locked, or cannot be reached.

One reading of a failure for every place that meets one: opening the store (every CLI and the app's
start, `Store.__init__`), its check that it can write (`write_problem`), and a write that fails while
serving (arena/store/transactions.py). A full disk is not "cannot be reached", and a read-only file
is not "try again in a moment": the words say what would fix it.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from common.errors import UserError

from .schema import schema_info

# Causes a moment's wait can cure: the message tells a rater to try again; the others do not.
PASSING = ("cannot be reached", "is busy")
# Below this much free space a SQLite store counts as full at start: the next rating may not fit.
MIN_FREE_BYTES = 1 << 20


class StoreUnavailable(UserError):
    """The ratings database cannot be used now (the message says why); nothing was saved."""


def _sqlite_name(exc: BaseException) -> str:
    return str(getattr(getattr(exc, "orig", None), "sqlite_errorname", "") or "")


def _sqlstate(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    return str(getattr(orig, "sqlstate", "") or getattr(getattr(orig, "diag", None), "sqlstate", "") or "")


def _cannot_open(url: str) -> str:
    """Why SQLite could not open the file at `url`, from the file system."""
    path = Path(make_url(url).database or "")
    if path.is_dir():
        return "cannot be opened: the path is a folder, not a file"
    if not path.parent.is_dir():
        return "cannot be opened: its folder does not exist"
    return "cannot be opened there (no permission, or a file system that does not take databases)"


def cause(exc: BaseException, url: str = "") -> str:
    """What is wrong, as the end of "the ratings database ...": e.g. "is read-only"; an error
    not recognised below is a connection that failed, "cannot be reached"."""
    return known_cause(exc, url) or "cannot be reached"


def known_cause(exc: BaseException, url: str = "") -> str | None:
    """`cause` of a failure recognised as the database's state, else None (a constraint, a bug...)."""
    name, state = _sqlite_name(exc), _sqlstate(exc)
    text = str(getattr(exc, "orig", None) or exc).lower()
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or name == "SQLITE_FULL" or state == "53100":
        return "is on a full disk (free some space)"
    if name.startswith("SQLITE_READONLY") or state == "25006" or "read-only" in text or "readonly" in text:
        return "is read-only (check the file's permissions, or the server's read-only mode)"
    if name == "SQLITE_NOTADB":
        return "is not a SQLite database (the file holds something else)"
    if name == "SQLITE_CANTOPEN":
        return _cannot_open(url)
    if isinstance(exc, OSError) and exc.errno in (errno.EEXIST, errno.ENOTDIR):  # from creating its folder
        return "cannot be opened: part of its path is a file, not a folder"
    if isinstance(exc, OSError):
        return f"cannot be opened: {exc.strerror or exc}"
    if name in ("SQLITE_BUSY", "SQLITE_LOCKED") or "database is locked" in text:
        return "is busy (another program holds its write lock)"
    return None


def passing(reason: str) -> bool:
    """Whether waiting may cure `reason` (a `cause`)."""
    return reason.startswith(PASSING)


@contextmanager
def named_problems(url: str) -> Iterator[None]:
    """Within: a database failure becomes one `StoreUnavailable` line naming the store and the cause."""
    try:
        yield
    except (SQLAlchemyError, OSError) as exc:
        if isinstance(exc, SQLAlchemyError) and not isinstance(exc, DBAPIError):
            raise
        shown = make_url(url).render_as_string(hide_password=True) if "://" in url else url
        reason = cause(exc, url)
        if reason == "cannot be reached":  # the driver's first line says how (refused, no such host, password)
            said = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            reason += f" ({said[0][:200]})" if said else ""
        raise StoreUnavailable(f"the ratings database {shown} {reason}") from exc


def write_problem(engine: Engine) -> str | None:
    """Why the store at `engine` cannot take a write now (read-only, full, busy...), or None.

    A real write, rolled back: a file that opens for reading but not for writing, a server in
    read-only mode and a disk that is full are found here, at start, not at the first rating."""
    url = engine.url.render_as_string(hide_password=False)
    if engine.dialect.name == "sqlite" and (make_url(url).database or ":memory:") != ":memory:":
        folder = Path(make_url(url).database or ".").expanduser().resolve().parent
        if folder.is_dir() and shutil.disk_usage(folder).free < MIN_FREE_BYTES:
            return "is on a full disk (free some space)"
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                conn = conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin() as transaction:
                conn.execute(update(schema_info).values(version=schema_info.c.version))
                transaction.rollback()
    except (DBAPIError, OSError) as exc:
        return cause(exc, url)
    return None
