"""Test support: a fresh, isolated store on SQLite or on the PostgreSQL server that
`scripts/services/postgres.sh` starts (URL in `ARENA_TEST_PG_URL`)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from arena.store import Store

PG_ENV = "ARENA_TEST_PG_URL"
PG_SKIP_REASON = (
    f"{PG_ENV} is not set: PostgreSQL is started by scripts/services/postgres.sh, which needs root "
    "(run `bash scripts/test.sh` as root, as CI does)"
)


def pg_url() -> str | None:
    return os.environ.get(PG_ENV) or None


# Parameters for a test that runs on each database: PostgreSQL is reported as skipped, not left out,
# where no server is configured.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(not pg_url(), reason=PG_SKIP_REASON))]

LIVE_DB_ENV = "ARENA_TEST_LIVE_DB"


def live_backends() -> list[str]:
    """The databases the live-app and browser tests run a doubled test on: `ARENA_TEST_LIVE_DB`
    (`sqlite`, `postgresql`, or both, comma-separated), by default PostgreSQL where a server is
    configured (production on a Space) and SQLite otherwise. Both databases' behaviour is proven by
    the store tests (`store` fixture, BACKENDS); a test through the app proves routes, cookies and
    the queue, which do not depend on the database, so one is enough for it. The shared app of the
    other live tests stays on SQLite, so a run with PostgreSQL still drives both through the app."""
    chosen = os.environ.get(LIVE_DB_ENV) or ("postgresql" if pg_url() else "sqlite")
    names = [name.strip().lower() for name in chosen.split(",") if name.strip()]
    unknown = sorted(set(names) - {"sqlite", "postgresql"})
    if unknown or not names:
        raise pytest.UsageError(f"{LIVE_DB_ENV}={chosen!r}: name sqlite, postgresql or both")
    return names


# Parameters for the live tests that ran on each database: the chosen ones only (see live_backends),
# PostgreSQL skipped with the reason where it was chosen and no server is configured.
LIVE_BACKENDS = [
    pytest.param(name, marks=pytest.mark.skipif(not pg_url(), reason=PG_SKIP_REASON)) if name == "postgresql" else name
    for name in live_backends()
]


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{Path(folder) / 'arena.db'}"


def fresh_pg_url() -> tuple[str, callable]:
    """A URL whose connections use a new empty schema; returns (url, drop) to clean up."""
    base = pg_url()
    assert base, PG_SKIP_REASON
    schema = "t_" + secrets.token_hex(6)
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    url = f"{base}{sep}options=-csearch_path%3D{schema}"

    def drop() -> None:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    return url, drop


def open_store(backend: str, folder: Path) -> tuple[Store, callable]:
    """(store, close) for backend "sqlite" or "postgresql"."""
    if backend == "sqlite":
        store = Store(sqlite_url(folder))
        return store, store.dispose
    url, drop = fresh_pg_url()
    store = Store(url)

    def close() -> None:
        store.dispose()
        drop()

    return store, close
