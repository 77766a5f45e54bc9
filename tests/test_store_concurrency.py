"""50 threads submit distinct and identical ratings at once: each is stored exactly once."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from arena.store.schema import study_raters
from tests.support.stores import BACKENDS, open_store

THREADS = 50


@pytest.mark.parametrize("backend", BACKENDS)
def test_fifty_threads_store_each_rating_exactly_once(backend, tmp_path):
    store, close = open_store(backend, tmp_path)
    try:
        sid = store.create_study("concurrency", methods=["BS-4", "TS-Temp", "TS-Tilted"])
        item_ids = store.add_items(sid, [{"prompt": f"p{i}"} for i in range(5)])
        output_ids = [
            store.add_output(iid, m, 0, text=f"{iid}{m}", settings={}, seed=0, model="m", new_tokens=1)[0]
            for iid in item_ids
            for m in ("BS-4", "TS-Temp", "TS-Tilted")
        ]
        barrier = threading.Barrier(THREADS)
        errors: list[BaseException] = []

        def work(k: int) -> None:
            try:
                barrier.wait()
                # Threads 0..24: 25 distinct raters (new rater rows created concurrently), each rating
                # two outputs. Threads 25..49: one shared rater re-submitting the same output (identical).
                if k < 25:
                    rid = store.rater_id(f"rater-{k}")
                    store.save_ratings(
                        rid,
                        [
                            dict(
                                output_id=output_ids[k % len(output_ids)],
                                coherence=1 + k % 5,
                                informativeness=2,
                                naturalness=3,
                                position=0,
                            ),
                            dict(
                                output_id=output_ids[(k + 1) % len(output_ids)],
                                coherence=4,
                                informativeness=4,
                                naturalness=4,
                                position=1,
                            ),
                        ],
                    )
                else:
                    rid = store.rater_id("shared")
                    store.save_rating(rid, output_ids[0], 5, 5, 5, "same", position=2)
                    store.study_rater_index(sid, rid)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors, errors[:3]
        frame = store.ratings_frame(sid)
        assert len(frame) == 25 * 2 + 1
        assert not frame.duplicated(["rater", "output_id"]).any()
        assert frame.rater.nunique() == 26
        for k in range(25):
            mine = frame[frame.rater == f"rater-{k}"].set_index("output_id")
            assert mine.loc[output_ids[k % len(output_ids)], "coherence"] == 1 + k % 5
        shared = frame[frame.rater == "shared"]
        assert len(shared) == 1 and shared.iloc[0].comment == "same"
        with store.engine.connect() as conn:  # "shared" enrolled once, though 25 threads enrolled it
            enrolled = conn.execute(select(func.count()).where(study_raters.c.study_id == sid)).scalar_one()
        assert enrolled == 1
        assert store.study_summary(sid)["raters"] == 26  # who rated counts too (an import enrols nobody)
    finally:
        close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_concurrent_first_visits_get_distinct_latin_square_rows(backend, tmp_path):
    store, close = open_store(backend, tmp_path)
    try:
        sid = store.create_study("rows")
        rids = [store.rater_id(f"r{k}") for k in range(20)]
        got: dict[int, int] = {}
        barrier = threading.Barrier(len(rids))

        def work(rid: int) -> None:
            barrier.wait()
            got[rid] = store.study_rater_index(sid, rid)

        threads = [threading.Thread(target=work, args=(r,)) for r in rids]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert sorted(got.values()) == list(range(len(rids)))
    finally:
        close()
