"""Studies written straight into an app's database, without the model: chosen texts, chosen numbers.

The load, security and XSS tests need outputs whose text and timing they know (markers to look
for in responses, payloads to render), and no generation time. The app process reads the same
SQLite file (WAL mode allows another process to write it while the app runs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.access import invites
from arena.store import Store

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def db_store(workdir: Path) -> Store:
    """A Store on the SQLite file an app started by `live_app.start_app(workdir)` uses."""
    return Store(f"sqlite:///{Path(workdir) / 'arena.db'}")


def seed_study(
    store: Store,
    name: str,
    prompts: Sequence[str],
    texts: Sequence[Mapping[str, str]],
    *,
    latency_ms: float = 1234.5,
    ttft_ms: float = 234.5,
    tokens_per_s: float = 12.5,
    seed: int = 7,
    new_tokens: int = 4,
) -> tuple[int, list[int]]:
    """A study with one item per prompt and, for item k, one output per method with `texts[k][method]`.
    Returns (study_id, item_ids)."""
    methods = list(texts[0])
    sid = store.create_study(
        name,
        model="seeded",
        methods=methods,
        settings={m: {} for m in methods},
        samples_per_method=1,
        max_new_tokens=new_tokens,
        base_seed=seed,
    )
    item_ids = store.add_items(sid, [{"prompt": p, "scenario": "seeded", "language": "en"} for p in prompts])
    for item_id, by_method in zip(item_ids, texts):
        for method, text in by_method.items():
            store.add_output(
                item_id,
                method,
                0,
                text=text,
                settings={"method": method, "seeded": True},
                seed=seed,
                model="seeded",
                new_tokens=new_tokens,
                latency_ms=latency_ms,
                ttft_ms=ttft_ms,
                tokens_per_s=tokens_per_s,
                prompt_tokens=5,
                finish_reason="length",
            )
    return sid, item_ids


def invite(store: Store, study_id: int, name: str) -> str:
    """Enrol the rater `name` in the study and return their invite code (what the Rate tab takes)."""
    [made] = invites.invite(store, study_id, [name])
    return made.code


def invite_all(store: Store, study_id: int, names: Sequence[str]) -> dict[str, str]:
    """Enrol several raters at once: {name: code}."""
    return {i.rater: i.code for i in invites.invite(store, study_id, list(names))}


def rate_every_output(store: Store, outputs: Mapping[str, int], raters: Sequence[tuple[str, int]]) -> None:
    """Each rater `(name, base)` scores the k-th output of `outputs` ({method: output id}, in method
    order) with coherence base + k // 2, fluency 3, naturalness min(5, base + k): known means per
    method and raters who agree in part, for the Results tab and the published page."""
    for rater, base in raters:
        rid = store.rater_id(rater)
        for k, output_id in enumerate(outputs.values()):
            store.save_rating(rid, output_id, base + k // 2, 3, min(5, base + k))


def close(store: Store, study_id: int) -> None:
    """End rating (the organizer may reveal the mapping and the seeds then)."""
    from arena import studies

    studies.close_study(store, study_id)


def publish(store: Store, study_id: int) -> None:
    """Close the study (if it is still open) and publish it: the Results tab shows only published studies."""
    from arena import studies

    if store.get_study(study_id).state in ("draft", "open"):
        studies.close_study(store, study_id)
    studies.publish_study(store, study_id)
