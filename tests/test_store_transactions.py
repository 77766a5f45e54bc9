"""Store.transaction(): several store calls kept all together or not at all, on SQLite and PostgreSQL.

Each multi-step write of the app (a study with its items, a quick rating, an import) is failed
halfway on purpose; the store must then hold nothing of it.
"""

from __future__ import annotations

import threading
from datetime import UTC

import pytest
from sqlalchemy import func, select

from arena import studies
from arena.files import export
from arena.runs.requests import MethodResult
from arena.store import Item, Store, Study
from arena.store.schema import items, outputs, raters, ratings
from common.errors import UserError
from tests.support.stores import open_store


class Injected(RuntimeError):
    """The failure a test puts in the middle of a multi-step write."""


def fail_on_call(monkeypatch, store: Store, method: str, n: int) -> list[int]:
    """Make `store.<method>` raise Injected on its n-th call (1-based); returns the call counter."""
    real = getattr(store, method)
    calls = [0]

    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] == n:
            raise Injected(f"{method} call {n}")
        return real(*args, **kwargs)

    monkeypatch.setattr(store, method, wrapped)
    return calls


def row_counts(store: Store) -> dict[str, int]:
    with store.read() as conn:
        return {
            t.name: int(conn.execute(select(func.count()).select_from(t)).scalar_one())
            for t in (items, outputs, raters, ratings)
        } | {"studies": len(store.list_studies())}


EMPTY = {"items": 0, "outputs": 0, "raters": 0, "ratings": 0, "studies": 0}


def test_a_transaction_keeps_every_write_or_none(store):
    with pytest.raises(Injected):
        with store.transaction():
            sid = store.create_study("s", methods=["BS-4"])
            store.add_items(sid, [{"prompt": "one"}])
            assert [i.prompt for i in store.items(sid)] == ["one"]  # reads inside see the writes so far
            store.add_items(sid, [{"prompt": "two"}])
            raise Injected
    assert row_counts(store) == EMPTY

    with store.transaction():
        sid = store.create_study("s", methods=["BS-4"])
        store.add_items(sid, [{"prompt": "one"}, {"prompt": "two"}])
    assert [i.prompt for i in store.items(sid)] == ["one", "two"]


def test_a_study_and_its_items_are_one_write(store):
    # create_study with items: the second item is refused by the database (no prompt), after the
    # study and the first item were written in the same transaction.
    with pytest.raises(Exception):
        store.create_study("s", methods=["BS-4"], items_=[{"prompt": "fine"}, {"prompt": None}])
    assert row_counts(store) == EMPTY


def test_a_transaction_belongs_to_its_thread(store):
    """Another thread's write is its own transaction: it is kept though this one is rolled back."""
    other: list[int] = []
    thread = threading.Thread(target=lambda: other.append(store.create_study("other", methods=["BS-4"])))
    with pytest.raises(Injected):
        with store.transaction():
            store.create_study("mine", methods=["BS-4"])
            thread.start()  # on SQLite it waits for this transaction's write lock; on PostgreSQL it commits
            raise Injected
    thread.join(60)
    assert [s.name for s in store.list_studies()] == ["other"] and len(other) == 1


def _result(method: str, text: str) -> MethodResult:
    return MethodResult(
        method=method,
        text=text,
        new_tokens=3,
        latency_ms=9.0,
        ttft_ms=1.0,
        tokens_per_s=300.0,
        settings={"method": method, "max_new_tokens": 16},
        seed=7,
        prompt_tokens=5,
    )


def test_a_quick_rating_failing_halfway_leaves_nothing(store, monkeypatch):
    results = [_result("BS-4", "beam says"), _result("TS-Temp", "temp says"), _result("TS-Tilted", "tilt says")]
    calls = fail_on_call(monkeypatch, store, "add_output", 2)  # the study, its item and one output are written
    with pytest.raises(Injected):
        studies.quick_item(store, "tiny-model", "Tell me a joke.", results)
    assert calls[0] == 2 and row_counts(store) == EMPTY

    monkeypatch.undo()
    study_id, item_id = studies.quick_item(store, "tiny-model", "Tell me a joke.", results)
    study, item = store.get_study(study_id), store.get_item(item_id)
    assert isinstance(study, Study) and study.kind == "adhoc" and study.methods == ("BS-4", "TS-Temp", "TS-Tilted")
    assert isinstance(item, Item) and item.study_id == study_id
    assert [(o.method, o.text) for o in store.outputs_for_item(item_id)] == [
        ("BS-4", "beam says"),
        ("TS-Temp", "temp says"),
        ("TS-Tilted", "tilt says"),
    ]


def _filled(tmp_path) -> list[dict]:
    """Export rows of a closed study with two items, three outputs each, rated by two raters."""
    source, close = open_store("sqlite", tmp_path / "source")
    try:
        sid = source.create_study(
            "Pilot",
            methods=["BS-4", "TS-Temp", "TS-Tilted"],
            model="m",
            base_seed=3,
            items_=[{"prompt": "first"}, {"prompt": "second"}],
        )
        for item in source.items(sid):
            for k, method in enumerate(("BS-4", "TS-Temp", "TS-Tilted")):
                oid, _ = source.add_output(
                    item.id, method, 0, text=f"{method} on {item.prompt}", settings={}, seed=k, model="m", new_tokens=4
                )
                for rater in ("ann", "bob"):
                    source.save_rating(source.rater_id(rater), oid, 1 + k, 2, 3, comment=f"{rater} {k}", position=k)
        source.set_study_state(sid, "closed", allowed_from=("open",))
        path = tmp_path / "ratings.jsonl"
        export.export_to_path(source, path)
        return export.read_export(path)
    finally:
        close()


def test_an_import_failing_halfway_leaves_nothing(store, tmp_path, monkeypatch):
    rows = _filled(tmp_path)
    assert len(rows) == 12
    # The 7th rating: the first item, its outputs, both raters and six ratings are written by then.
    calls = fail_on_call(monkeypatch, store, "save_ratings", len(rows) // 2 + 1)
    with pytest.raises(Injected):
        export.import_rows(store, rows)
    assert calls[0] == len(rows) // 2 + 1 and row_counts(store) == EMPTY

    monkeypatch.undo()
    counts = export.import_rows(store, rows)
    assert (counts["studies"], counts["items"], counts["outputs"], counts["ratings"]) == (1, 2, 6, 12)
    assert row_counts(store) == {"items": 2, "outputs": 6, "raters": 2, "ratings": 12, "studies": 1}
    [study] = store.list_studies()
    assert study.state == "closed" and study.base_seed == 3 and study.created_at.tzinfo == UTC


def test_an_import_refused_by_the_database_halfway_leaves_nothing(store, tmp_path):
    """No injected failure: a row the database itself refuses (read_export's checks bypassed)."""
    rows = _filled(tmp_path)
    rows[7] = {**rows[7], "prompt": None, "item_public_id": "not-yet-stored"}  # items.prompt is NOT NULL
    with pytest.raises(Exception) as caught:
        export.import_rows(store, rows)
    assert not isinstance(caught.value, Injected)
    assert row_counts(store) == EMPTY


@pytest.mark.parametrize("url", ["mysql://user@localhost/arena", "mssql+pyodbc://user@dsn", "oracle://u@h/db"])
def test_other_databases_are_refused_with_a_clear_message(url):
    with pytest.raises(UserError, match="SQLite or PostgreSQL"):
        Store(url)
