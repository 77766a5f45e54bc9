"""Quick rating from the Compare tab: its finished results as a one-item ad-hoc study."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..errors import UserError
from ..prompts import clean_prompt
from ..requests import MethodResult, output_fields
from ..store import Store
from .limits import MAX_RESPONSES

QUICK_SCENARIO = "quick"


def quick_item(
    store: Store, lm_name: str, prompt: str, results: Iterable[MethodResult | Mapping[str, Any]], raw: bool = False
) -> tuple[int, int]:
    """Turn the Compare tab's finished results into a one-item ad-hoc study; return (study_id, item_id)."""
    results = list(results or [])
    if len(results) < 2:
        raise UserError("run at least two methods first; blind rating compares their outputs")
    if len(results) > MAX_RESPONSES:
        raise UserError(f"at most {MAX_RESPONSES} outputs can be rated side by side")
    fields = [
        output_fields(r) | {"method": (r.method if isinstance(r, MethodResult) else r["method"])} for r in results
    ]
    prompt = clean_prompt(prompt)
    methods = list(dict.fromkeys(f["method"] for f in fields))
    max_new = max(int((f["settings"] or {}).get("max_new_tokens", 0) or 0) for f in fields) or 1
    seed = next((f["seed"] for f in fields if f["seed"] is not None), 0)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    with store.transaction():  # a study without its outputs would be a quick rating nobody can rate
        study_id = store.create_study(
            f"Quick rating {when} UTC",
            kind="adhoc",
            model=lm_name,
            methods=methods,
            settings={},
            samples_per_method=1,
            max_new_tokens=max_new,
            base_seed=int(seed),
        )
        [item_id] = store.add_items(study_id, [{"prompt": prompt, "scenario": QUICK_SCENARIO, "raw": bool(raw)}])
        seen: dict[str, int] = {}
        for f in fields:
            method = f.pop("method")
            sample = seen.get(method, 0)
            seen[method] = sample + 1
            store.add_output(item_id, method, sample, model=lm_name, **f)
    return study_id, item_id
