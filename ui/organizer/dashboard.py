"""Organizer dashboard pieces: the preview before generating and the compact per-rater table.

`preview` counts what "Create study" would generate and how long it would take on this machine
(arena/runs/estimate.py, from measured throughput); `rater_table` shows per rater: % of the study done,
the median seconds per item (evaluation.human.raters) and the last activity to the minute, with a
totals row.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import gradio as gr
import pandas as pd

from arena import studies
from arena.inputs.numbers import parse_whole, whole_number
from arena.rating import systems
from arena.rating.attention import MAX_ATTENTION_ITEMS, AttentionPlan
from arena.rating.blind import LABELS
from arena.runs import estimate
from arena.store import Store
from arena.store.feedback import FLAG_REASONS
from common.errors import UserError
from common.messages import english, text, translated
from common.rubric import DEFAULT_RUBRIC
from evaluation.human.raters import seconds_per_item

from .. import organizer_models, store_for
from ..i18n import language_of_request
from ..safe import md_text
from .auth import check_request

RATER_COLUMNS = ["rater", "% done", "items done", "skipped", "median s / item", "last activity (UTC)"]
ENROLMENT_COLUMNS = ["rater", "rater_index", "has_code", "revoked_at", "created_at"]
FLAG_COLUMNS = ["item", "what", "reason", "note", "rater", "when (UTC)"]
_throughput_cache: dict[str, tuple[float, dict[str, float]]] = {}
CACHE_S = 60.0


NOT_STARTED = english("organizer_not_started")
PREVIEW_PROMPTS = 3  # how many of the first prompts the preview quotes
PREVIEW_CHARS = 80


def second(value: Any) -> str:
    """A timestamp to the second, in UTC ("2026-12-01 17:38:21"); "–" for none."""
    t = pd.to_datetime(value, errors="coerce", utc=True)
    return "–" if pd.isna(t) else t.strftime("%Y-%m-%d %H:%M:%S")


def empty_table(columns: list[str], message: str) -> pd.DataFrame:
    """An empty table that says so in words: one row, the message in the first column (Gradio shows
    "1 2 3" headers for a table with no columns and a blank grid for one with no rows)."""
    return pd.DataFrame([{columns[0]: message, **{c: "" for c in columns[1:]}}], columns=columns)


def rater_table(store: Store, study_id: int) -> pd.DataFrame:
    """Per rater: % done, items done (of N; a skipped item counts as done), how many of them were
    skipped, median seconds per item, last activity; then a total row. Every enrolled rater has a
    row, one who has not begun with "not started"."""
    study = store.get_study(study_id)
    progress = (
        store.vote_progress(study_id) if study is not None and study.design == "pairwise" else store.progress(study_id)
    )
    skips = pd.DataFrame([(s.rater, s.created_at) for s in store.skips(study_id)], columns=["rater", "created_at"])
    invited = [e.rater for e in store.enrolments(study_id)]
    n_items = len(store.items(study_id))
    if progress.empty and skips.empty and not invited:
        return empty_table(RATER_COLUMNS, english("organizer_no_raters"))
    speed = seconds_per_item(store.ratings_frame(study_id))
    rated = progress.set_index("rater")
    skipped = skips.groupby("rater")["created_at"].agg(["size", "max"])
    active = set(rated.index) | set(skipped.index)
    names = sorted(active | set(invited))
    rows, total_done, total_skipped, last_seen = [], 0, 0, []
    for name in names:
        if name not in active:
            rows.append(
                {
                    "rater": name,
                    "% done": "0%" if n_items else "–",
                    "items done": text("organizer_items_done", done=0, n=n_items),
                    "skipped": "0",
                    "median s / item": "–",
                    "last activity (UTC)": NOT_STARTED,
                }
            )
            continue
        n_skipped = int(skipped.loc[name, "size"]) if name in skipped.index else 0
        done = (int(rated.loc[name, "items_done"]) if name in rated.index else 0) + n_skipped
        last = max(
            (
                t
                for t in (
                    rated.loc[name, "last_rating"] if name in rated.index else None,
                    skipped.loc[name, "max"] if name in skipped.index else None,
                )
                if t is not None
            ),
            key=lambda t: pd.to_datetime(t, utc=True),
        )
        total_done, total_skipped = total_done + done, total_skipped + n_skipped
        last_seen.append(pd.to_datetime(last, utc=True))
        pace = speed.get(name, math.nan)
        rows.append(
            {
                "rater": name,
                "% done": f"{100 * done / n_items:.0f}%" if n_items else "–",
                "items done": text("organizer_items_done", done=done, n=n_items),
                "skipped": str(n_skipped),
                "median s / item": "–" if pace is None or not math.isfinite(pace) else f"{pace:.0f}",
                "last activity (UTC)": second(last),
            }
        )
    finite = [v for v in speed.values if math.isfinite(v)]
    rows.append(
        {
            "rater": text("organizer_all_raters", n=len(names)),
            "% done": f"{100 * total_done / (n_items * len(names)):.0f}%" if n_items else "–",
            "items done": text("organizer_items_done", done=total_done, n=n_items * len(names)),
            "skipped": str(total_skipped),
            "median s / item": f"{pd.Series(finite).median():.0f}" if finite else "–",
            "last activity (UTC)": second(max(last_seen)) if last_seen else NOT_STARTED,
        }
    )
    return pd.DataFrame(rows, columns=RATER_COLUMNS)


def enrolment_table(store: Store, study_id: int) -> pd.DataFrame:
    """The enrolled raters of a study, times to the second; in words when there are none."""
    rows = [
        {
            "rater": e.rater,
            "rater_index": e.rater_index,
            "has_code": e.has_code,
            "revoked_at": second(e.revoked_at) if e.revoked_at else "",
            "created_at": second(e.created_at),
        }
        for e in store.enrolments(study_id)
    ]
    if not rows:
        return empty_table(ENROLMENT_COLUMNS, english("organizer_no_raters_invited"))
    return pd.DataFrame(rows, columns=ENROLMENT_COLUMNS)


def flag_table(store: Store, study_id: int) -> pd.DataFrame:
    """The study's flags for the organizer: item number, what was flagged (the item, or a response
    by the letter that rater saw: letters differ between raters, so this names no method), reason,
    note, rater and time. Rating goes on regardless; the methods behind flagged responses are in
    the export once the study is closed."""
    rows = [
        {
            "item": f.item_ordinal + 1,
            "what": english("organizer_whole_item")
            if f.output_id is None
            else text("organizer_response_seen", label=LABELS[f.position])
            if f.position is not None
            else english("organizer_a_response"),
            "reason": FLAG_REASONS.get(f.reason, f.reason),
            "note": f.note or "",
            "rater": f.rater,
            "when (UTC)": second(f.created_at),
        }
        for f in store.flags(study_id)
    ]
    if not rows:
        return empty_table(FLAG_COLUMNS, english("organizer_no_flags"))
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def throughput(store: Store, lm) -> dict[str, float]:
    """Measured tokens/s per method for the loaded model: stored timed outputs (cached a minute),
    overridden by this process's latest Compare runs."""
    name = lm if isinstance(lm, str) else lm.name  # or a model's name, as outputs store it
    cached = _throughput_cache.get(name)
    if cached is None or time.monotonic() - cached[0] > CACHE_S:
        cached = (time.monotonic(), estimate.from_outputs(store.outputs_frame(), name))
        _throughput_cache[name] = cached
    return {**cached[1], **estimate.measured(name)}


def preview(
    prompts: list,
    methods: list[str] | None,
    samples: Any,
    max_new_tokens: Any,
    rates: dict[str, float],
    attention_items: Any = 0,
    lang: str = "en",
) -> str:
    """The line shown above "Create study": counts and time, or what is missing (Markdown-safe text),
    in `lang`. The counts are what creation makes: the attention items' outputs included."""
    if not methods:
        return text("preview_no_method", lang)
    try:
        n_samples = max(1, parse_whole(samples or 1))
        max_new = parse_whole(max_new_tokens)
    except ValueError:
        return text("preview_not_whole", lang)
    if not prompts:
        return text("preview_no_prompts", lang)
    try:  # creation's own checks of the count, so the preview refuses what Create would refuse
        count = whole_number(attention_items or 0, english("what_attention_items"), 0, MAX_ATTENTION_ITEMS)
        AttentionPlan(count).check(DEFAULT_RUBRIC, len(prompts))
    except UserError as exc:
        return text("preview_line", lang, line=md_text(translated(str(exc), lang)))
    slots = studies.expected_slots(methods, n_samples)
    line = estimate.describe(len(prompts), slots, max_new, rates, attention=count, lang=lang)
    return text("preview_line", lang, line=line) + first_prompts(prompts, lang)


def first_prompts(prompts: list, lang: str = "en") -> str:
    """The preview's quote of the first prompts, so the organizer sees which list will be used."""
    texts = [str(getattr(p, "prompt", p)) for p in prompts[:PREVIEW_PROMPTS]]
    quoted = [t if len(t) <= PREVIEW_CHARS else t[: PREVIEW_CHARS - 1] + "…" for t in texts]
    lines = "".join(f"\n{k}. {md_text(' '.join(t.split()))}" for k, t in enumerate(quoted, 1))
    more = text("preview_more", lang, n=len(prompts) - len(texts)) if len(prompts) > len(texts) else ""
    return text("preview_first_prompts", lang, lines=lines, more=more)


def safe_prompts(prompts_from, *args) -> tuple[list, str | None]:
    try:
        return prompts_from(*args), None
    except UserError as exc:
        return [], str(exc)


def wire_preview(ctx, line, inputs: list, prompts_from, password=None, names: Sequence[str] = ()) -> None:
    """Update `line` whenever an input of "Create a study" changes: [source, language, pasted,
    upload, methods, samples, max_new] and, optionally, the models box (a study over models counts
    its systems) and the number of attention items. Behind the organizer password like every organizer handler:
    the estimate comes from measured per-method throughput (unpublished studies' timings included),
    and the handler reads the prompt source, uploads too. `names`: the models offered, for the
    warning on Chinese prompts for an English-only model (organizer_models.language_warning)."""

    def update(
        request: gr.Request, pw, src, lang, pasted_text, upload_value, method_list, n_samples, max_new_tokens, *extra
    ):
        models, attention = extra[:1], (extra[1] if len(extra) > 1 else 0)
        reader = language_of_request(request)
        if not pw:
            return text("preview_locked", reader)
        try:
            check_request(ctx, pw, request)
        except UserError as exc:
            return text("preview_line", reader, line=md_text(translated(str(exc), reader)))
        prompts, error = safe_prompts(prompts_from, src, lang, pasted_text, upload_value)
        if error:
            return text("preview_line", reader, line=md_text(translated(error, reader)))
        lm, store = ctx.model(), store_for(ctx)
        rates = throughput(store, lm)
        app = getattr(lm, "label", lm.name)
        chosen = list(models[0] or []) if models else []  # the models box, when the form has one
        warning = organizer_models.language_warning(prompts, chosen, getattr(lm, "alias", "") or app, names, reader)
        warning = f"{warning}\n\n" if warning else ""
        if method_list and chosen and chosen != [app]:  # a study over models: count and time its systems
            # each system at its model's measured rate (Compare's grid records them under the model's name)
            rates = {
                systems.system_name(m, method): r
                for m in chosen
                for method, r in (rates if m == app else throughput(store, m)).items()
            }
            method_list = systems.cross(chosen, method_list)
        return warning + preview(prompts, method_list, n_samples, max_new_tokens, rates, attention, reader)

    pw_box = [password] if password is not None else [gr.Textbox(visible=False)]
    # Not on every keystroke in the password box (each would count as a wrong guess): on Enter there.
    pw_box[0].submit(update, [*pw_box, *inputs], line, api_visibility="private", show_progress="hidden")
    for component in inputs:
        component.change(
            update,
            [*pw_box, *inputs],
            line,
            api_visibility="private",
            trigger_mode="always_last",
            show_progress="hidden",
        )
    if ctx.tabs is not None:
        ctx.tabs.select(update, [*pw_box, *inputs], line, api_visibility="private", show_progress="hidden")
