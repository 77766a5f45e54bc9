"""Transactions: a write or read transaction per unit of work, a thread's open `transaction()` that
every store call inside it joins, and an unreachable server reported as a clear message."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DatabaseError, InterfaceError, OperationalError

from .problems import StoreUnavailable, known_cause, passing


@contextmanager
def unreachable_as_user_error() -> Iterator[None]:
    # A stopped or unreachable server must reach the rater as a clear message, not as Gradio's
    # bare "Error": the transaction was rolled back, so the rater must know to submit again, or,
    # when waiting cannot help (read-only, full disk), that someone must fix the store first.
    # No URL in it: raters read this line.
    try:
        yield
    except (DatabaseError, InterfaceError) as exc:
        reason = known_cause(exc)
        if reason is None:
            if not isinstance(exc, (OperationalError, InterfaceError)):
                raise  # a constraint or a bug: the callers that expect one catch it
            reason = "cannot be reached"
        if passing(reason):
            advice = "keep this page open and try again in a moment"
            reason = reason.replace("cannot be reached", "cannot be reached right now")
        else:
            advice = "keep this page open and tell the organizer"
        raise StoreUnavailable(f"the ratings database {reason}, so this was NOT saved; {advice}") from exc


class StoreBase:
    """The connection and transactions every part of `Store` uses (one transaction per unit of work)."""

    engine: Engine
    url: str
    dialect: str
    _local: threading.local
    _ratings_upsert_stmt: Any

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction around several store calls: every `Store` method called inside it, in
        this thread, joins it, so either all of their writes are kept or, if anything raises, none.

        Inside it, a method's own retry after a constraint conflict cannot retry (on PostgreSQL the
        conflict ends the whole transaction): the error reaches the caller and nothing is kept."""
        with self.write() as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A write transaction (or the thread's open `transaction()`); on SQLite it takes the write
        lock up front (BEGIN IMMEDIATE)."""
        joined = getattr(self._local, "conn", None)
        if joined is not None:
            yield joined
            return
        with unreachable_as_user_error():
            with self.engine.connect() as conn:
                if self.dialect == "sqlite":
                    conn = conn.execution_options(sqlite_begin="IMMEDIATE")
                with conn.begin():
                    self._local.conn = conn
                    try:
                        yield conn
                    finally:
                        self._local.conn = None

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read transaction; inside a `transaction()`, that one (which sees its own writes)."""
        joined = getattr(self._local, "conn", None)
        if joined is not None:
            yield joined
            return
        with unreachable_as_user_error():
            with self.engine.connect() as conn:
                with conn.begin():
                    yield conn

    def _insert(self, table):
        """The dialect's INSERT, which has ON CONFLICT."""
        return (sqlite.insert if self.dialect == "sqlite" else postgresql.insert)(table)
