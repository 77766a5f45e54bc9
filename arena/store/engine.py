"""Where the store lives and how to connect: `DATABASE_URL`, else a SQLite file.

SQLite runs in WAL mode with a busy timeout, `synchronous=FULL` (a committed rating survives the
process being killed), foreign keys on, and write transactions opened with `BEGIN IMMEDIATE` so
concurrent writers queue on the busy timeout instead of failing on a read-to-write upgrade.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from arena import settings
from common.errors import UserError

SQLITE_BUSY_TIMEOUT_MS = 30_000
# The databases the store is written and tested for; any other URL is refused up front.
DIALECTS: tuple[str, ...] = ("sqlite", "postgresql")


def default_db_path() -> Path:
    """`ARENA_DB_PATH`, else `./data/arena.db`.

    No network-mounted folder is picked automatically: Spaces' persistent storage is now a mounted
    storage bucket (a network filesystem), where SQLite's WAL mode (shared memory, file locks) is
    not safe. On a Space, use PostgreSQL through DATABASE_URL; the Rate and Organizer tabs warn
    while ratings live on the Space's own disk."""
    env = settings.current().db_path
    if env:
        return Path(env).expanduser()
    return Path("data") / "arena.db"


def normalize_url(url: str) -> str:
    """Accept the `postgres://` and `postgresql://` forms hosts hand out; use the psycopg 3 driver."""
    url = url.strip()
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def default_url() -> str:
    """`DATABASE_URL` if set, else the SQLite file from `default_db_path()`."""
    url = settings.current().database_url.strip()
    if url:
        return normalize_url(url)
    return f"sqlite:///{default_db_path().resolve()}"


def make_engine(url: str | None = None) -> Engine:
    url = normalize_url(url or default_url())
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise UserError(f"not a database URL: {url!r} ({exc})") from None
    if parsed.get_backend_name() not in DIALECTS:
        raise UserError(
            f"the ratings store runs on SQLite or PostgreSQL, not {parsed.get_backend_name()} "
            f"({parsed.render_as_string(hide_password=True)})"
        )
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, future=True)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, future=True)
    _configure_sqlite(engine)
    return engine


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event below open transactions, not the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")
