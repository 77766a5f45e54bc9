"""Creating a study: its `StudySpec` checked, then the study and its items in one transaction."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.inputs.prompts import encode_prompt
from arena.rating import systems
from arena.rating.attention import instruction_of, with_attention_items
from arena.rating.study_spec import EXCLUSION_RULES, StudySpec, check_exclusion_rules, expected_slots
from common import messages
from common.errors import UserError
from common.rubric import Rubric

from ..store import Store

__all__ = ["EXCLUSION_RULES", "StudySpec", "check_exclusion_rules", "check_prompt_lengths", "create_study",
           "read_rubric"]  # fmt: skip


def create_study(store: Store, spec: StudySpec, *, model: str = "", lm: Any = None) -> int:
    """Check `spec` (`StudySpec.checked`), then store the study and its items in one transaction (no
    generation yet); the study's id.

    The study starts as a draft; `generate_study` opens it once every output is stored. `model`: the
    app's model, which generates a one-model study. With `lm`, every prompt is checked against the
    model's context (prompt + max_new_tokens) before anything is written. The attention items'
    responses are stored now, never generated."""
    spec = spec.checked()
    if lm is not None:
        check_prompt_lengths(spec, lm)
    blind_seed = secrets.randbelow(2**62)
    items = with_attention_items([p.as_item() for p in spec.prompts], spec.attention, blind_seed)
    with store.transaction():  # the study, its items and its attention items' responses: all or nothing
        sid = store.create_study(**spec.store_fields(), model=model, blind_seed=blind_seed, state="draft", items_=items)
        _store_attention_responses(store, sid, expected_slots(spec.methods or (), int(spec.samples_per_method)), model)
    return sid


def check_prompt_lengths(spec: StudySpec, lm: Any) -> None:
    """Every prompt of a checked `spec` fits `lm`'s context with its max_new_tokens, as each method will
    read it."""
    for k, p in enumerate(spec.prompts, start=1):
        try:  # an instruction makes it longer
            for instruction in {systems.decoder(m).instruction(spec.settings[m], p.prompt) for m in spec.methods or ()}:
                encode_prompt(lm.tokenizer, p.prompt, p.raw, "cpu", lm.context_length, int(spec.max_new_tokens),
                              instruction)  # fmt: skip
        except UserError as exc:
            raise UserError(messages.text("study_prompt_error", k=k, error=str(exc))) from None


def read_rubric(path: str | Path) -> Rubric:
    """A rubric from a JSON file (common/rubric.py); UserError naming the file when it is unreadable or wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the rubric {Path(path).name}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return Rubric.from_json(text)
    except UserError as exc:
        raise UserError(f"{Path(path).name}: {exc}") from None


def _store_attention_responses(store: Store, study_id: int, slots: Sequence[tuple[str, int]], model: str) -> None:
    """Each attention item's responses: the instruction, once per method and sample, as a real item has."""
    for item in store.items(study_id):
        if item.attention:
            for method, sample in slots:
                text = instruction_of(item.attention)
                store.add_output(item.id, method, sample, text=text, settings={}, seed=None, model=model, new_tokens=0)
