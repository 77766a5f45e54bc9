"""A ratings store that cannot take a write says why (issue 36): read-only and a full disk are not
"cannot be reached ... try again", which would never succeed; the check at start finds them first."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.store import Store
from arena.store.problems import StoreUnavailable, cause, passing
from tests.support.seeding import seed_study
from tests.support.stores import PG_SKIP_REASON, fresh_pg_url, pg_url


def read_only_copy(tmp_path: Path) -> tuple[Store, int]:
    """A seeded SQLite file opened read-only, as SQLite opens a file whose permissions forbid writing."""
    path = tmp_path / "arena.db"
    writable = Store(f"sqlite:///{path}")
    sid, _ = seed_study(writable, "seeded", ["a prompt"], [{"BS-4": "one", "TS-Temp": "two"}])
    writable.dispose()
    return Store(f"sqlite:///file:{path}?mode=ro&uri=true"), sid


def test_read_only_store_is_found_at_start_and_named_on_write(tmp_path: Path):
    store, sid = read_only_copy(tmp_path)
    assert store.write_problem() is not None and "read-only" in store.write_problem()
    assert store.get_study(sid) is not None  # reading still works: an export from it is fine
    with pytest.raises(StoreUnavailable) as refused:
        store.rater_id("ana")
    message = str(refused.value)
    assert "read-only" in message and "NOT saved" in message, message
    assert "cannot be reached" not in message and "try again" not in message, message


def test_a_writable_store_has_no_problem(tmp_path: Path):
    assert Store(f"sqlite:///{tmp_path / 'arena.db'}").write_problem() is None


@pytest.mark.parametrize(
    ("error", "reason", "passes"),
    [
        (OSError(28, "No space left on device"), "full disk", False),
        (OSError(13, "Permission denied"), "cannot be opened", False),
    ],
)
def test_os_errors_are_named(error: OSError, reason: str, passes: bool):
    said = cause(error)
    assert reason in said and passing(said) is passes


@pytest.mark.skipif(not pg_url(), reason=PG_SKIP_REASON)
def test_a_read_only_postgresql_is_named_at_start_and_on_write():
    url, drop = fresh_pg_url()
    try:
        Store(url).dispose()  # the schema, created while it could be
        read_only = Store(url + "%20-cdefault_transaction_read_only%3Don")  # the server's read-only mode
        assert "read-only" in (read_only.write_problem() or "")
        with pytest.raises(StoreUnavailable, match="read-only.*NOT saved"):
            read_only.rater_id("ana")
        read_only.dispose()
    finally:
        drop()
