"""Compare's "Run blind": rate the run's outputs as A, B, C before learning which method wrote which.

Arena style (FastChat's anonymous battle): the outputs are generated as in a normal run, but none of
them reaches the browser under a method's name. The run's results go to a server-side state only
(`sealed`); the named boxes, the timing table and the chart stay empty, the status counts outputs
without naming a method, and Compare's `last` state (which the token view, the task checks and
Stop read) holds no result. When every output is ready a quick study is made of them
(arena/studies/quick.py), and this panel shows them in its secret, balanced order as A, B, C
(`blind.open_with_code`, as a rater sees them). Submit writes the scores; only then is the mapping
read back (`quick.reveal_own`, which refuses while any response lacks a stored rating) and the named
boxes, timing and chart filled. "Show without rating" gives up the blind rating and fills them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from arena.access import clients
from arena.rating import blind
from arena.store import Store
from arena.studies import quick
from arena.studies.limits import MAX_RESPONSES
from common.errors import UserError
from common.messages import dimension_name
from common.rubric import DEFAULT_RUBRIC

from .. import AppContext, store_for
from ..handler import handler
from ..rate.rubric_form import row_specs
from ..safe import md_text, response_html

# A quick study asks the default questions (arena/studies/quick.py); its rows are the Rate tab's own.
RUBRIC = DEFAULT_RUBRIC
WIDTH = len(RUBRIC.dimensions)
STOPPED = "**Stopped**: the blind run ended before every output was ready; nothing to rate. Run blind again."
HIDDEN = "Hidden until you have rated the outputs blind (Run blind)"
BUTTON = "Run blind"


def masked(run: Callable[..., Iterator[list[Any]]], n_boxes: int) -> Callable[..., Iterator[list[Any]]]:
    """Compare's run handler with nothing that names a method: yields [status, *boxes, timing, chart,
    last, sealed], where `run` yields [status, *boxes, timing, chart, last]. The run's state goes to
    `sealed` (server-side), `last` gets the run without its results."""

    def blind_run(request: gr.Request, *args: Any) -> Iterator[list[Any]]:
        first = True
        total, ready, line = 0, 0, ""
        for update in run(request, *args):
            state = update[1 + n_boxes + 2]
            if isinstance(state, dict):
                total, ready = int(state.get("total") or 0), len(state.get("results") or [])
            if first:
                first = False
                cleared = {**state, "results": [], "blind": True} if isinstance(state, dict) else gr.update()
                line = f"Generating {total} outputs blind: they are shown once all are ready."
                yield (
                    [gr.update(value=line)]
                    + [gr.update(value="", placeholder=HIDDEN) for _ in range(n_boxes)]
                    + [gr.update(value=None, visible=False), gr.update(value=None, visible=False), cleared, state]
                )
                continue
            changed = isinstance(state, dict)
            if changed:
                line = f"Generating blind: {ready} of {total} outputs ready…"
            # the line in every message: a bare update after a value can be lost by a busy browser
            yield (
                [gr.update(value=line)]
                + [gr.update(value="", placeholder=HIDDEN) for _ in range(n_boxes)]
                + [gr.update(value=None, visible=False), gr.update(value=None, visible=False)]
                + [gr.update(), state if changed else gr.update()]
            )

    return blind_run


@dataclass
class Panel:
    """The blind rating form under Compare's Run row, hidden until a blind run is ready."""

    box: gr.Column
    intro: gr.Markdown
    slots: list[gr.Column]
    texts: list[gr.HTML]
    radios: list[gr.Radio]  # per slot, one per dimension
    submit: gr.Button
    give_up: gr.Button
    message: gr.Markdown
    sealed: gr.State

    @classmethod
    def build(cls) -> Panel:
        slots: list[gr.Column] = []
        texts: list[gr.HTML] = []
        radios: list[gr.Radio] = []
        with gr.Column(visible=False, elem_id="compare-blind") as box:
            intro = gr.Markdown("")
            with gr.Row(elem_id="compare-blind-responses"):
                for k in range(MAX_RESPONSES):
                    label = blind.LABELS[k]
                    with gr.Column(visible=False, min_width=260) as slot:
                        texts.append(gr.HTML(""))
                        radios.extend(gr.Radio(value=None, **spec) for spec in row_specs(RUBRIC, label)[:WIDTH])
                    slots.append(slot)
            with gr.Row():
                submit = gr.Button("Submit and reveal", variant="primary", elem_id="compare-blind-submit")
                give_up = gr.Button("Show the methods without rating", elem_id="compare-blind-give-up")
            message = gr.Markdown("", elem_id="compare-blind-message")
        return cls(box, intro, slots, texts, radios, submit, give_up, message, gr.State(None))

    def form(self) -> list[Any]:
        return [self.box, self.intro, *self.slots, *self.texts, *self.radios, self.submit, self.give_up, self.message]


def form_updates(view: blind.RaterView | None, intro: str, message: str = "") -> list[Any]:
    """The panel's form for `view` (its responses as A, B, C…), or hidden when there is none."""
    responses = view.responses if view is not None else []
    n = len(responses)
    return (
        [gr.update(visible=view is not None or bool(message)), gr.update(value=intro)]
        + [gr.update(visible=k < n) for k in range(MAX_RESPONSES)]
        + [gr.update(value=response_html(r.label, r.text) if k < n else "") for k, r in _padded(responses)]
        + [gr.update(value=None, interactive=True) for _ in range(MAX_RESPONSES * WIDTH)]
        + [gr.update(visible=view is not None, interactive=True), gr.update(visible=view is not None)]
        + [gr.update(value=message)]
    )


def _padded(responses: Sequence[blind.Response]) -> list[tuple[int, Any]]:
    return [(k, responses[k] if k < len(responses) else None) for k in range(MAX_RESPONSES)]


def reveal_table(revealed: Sequence[quick.Revealed]) -> str:
    """The reveal: which method wrote each response, next to the scores just saved."""
    head = "| Response | Method | " + " | ".join(dimension_name(d).capitalize() for d in RUBRIC.names) + " |"
    rule = "|" + "---|" * (2 + WIDTH)
    rows = [
        f"| {r.label} | **{md_text(r.method)}** | "
        + " | ".join("can't judge" if r.scores[d] is None else str(r.scores[d]) for d in RUBRIC.names)
        + " |"
        for r in revealed
    ]
    return "\n".join(["**Revealed** (your scores are saved):", "", head, rule, *rows])


def reveal_run(shown: Callable[[list[Any]], list[Any]], sealed: dict[str, Any]) -> list[Any]:
    """The sealed run put back on the page (`shown` fills the named boxes, timing and chart): the
    sealed state emptied, the last run, then `shown`'s updates."""
    run = {k: v for k, v in sealed.items() if k not in ("code", "item")}
    return [None, run, *shown(run.get("results") or [])]


def spent(n_radios: int) -> list[Any]:
    """The form is spent: its answers can no longer change what was saved (submit, give up, radios)."""
    return [gr.update(visible=False), gr.update(visible=False)] + [gr.update(interactive=False)] * n_radios


def on_ready(store: Store, model: Callable[[], Any], shown: Callable[[list[Any]], list[Any]], n_shown: int,
             request: gr.Request, sealed: Any) -> list[Any]:  # fmt: skip
    """A blind run ended: a quick study of its outputs, opened as A, B, C… (form, status, sealed, last,
    then Compare's named boxes, untouched); the outputs under their methods when no blind rating is made."""
    if not isinstance(sealed, dict) or not sealed.get("results"):
        return form_updates(None, "") + [gr.update()] * (3 + n_shown)
    results = list(sealed["results"])
    if len(results) < int(sealed.get("total") or 0):  # stopped: nothing complete to rate
        line = "Stopped before every output was ready: nothing to rate blind. Run blind again to rate."
        return form_updates(None, "") + [gr.update(value=line), gr.update(), gr.update()] + [gr.update()] * n_shown
    client = clients.client_of(request)
    try:
        _, code = quick.create(store, model().name, sealed.get("prompt") or "", results,
                               bool(sealed.get("raw", False)), client)  # fmt: skip
        view, why = blind.open_with_code(store, code, client=client)
        if view is None:
            raise UserError(why)
    except UserError as exc:  # e.g. one method only, or the hour's share of quick ratings used: shown as they are
        line = f"No blind rating: {exc}. The outputs are shown under their methods."
        return form_updates(None, "") + [gr.update(value=line), *reveal_run(shown, sealed)]
    intro = (
        f"**Rate blind.** {len(view.responses)} outputs in a random order. Score each from 1 to 5; "
        "which method wrote which is shown once your scores are saved."
    )
    state = {**sealed, "code": code, "item": view.item}
    line = f"All {len(results)} outputs are ready: rate them below."
    return form_updates(view, intro) + [gr.update(value=line), state, gr.update()] + [gr.update()] * n_shown


def on_submit(store: Store, shown: Callable[[list[Any]], list[Any]], n_after: int, request: gr.Request,
              sealed: Any, *values: Any) -> list[Any]:  # fmt: skip
    """Save the scores, then reveal which method wrote which (`n_after` outputs: sealed, last, Compare's
    boxes, submit, give up, the radios, the message)."""
    keep = [gr.update()] * n_after
    if not isinstance(sealed, dict) or not sealed.get("code"):
        return keep[:-1] + [gr.update(value="Nothing to rate: press Run blind first.")]
    client = clients.client_of(request)
    try:
        rows = [list(values[k * WIDTH : (k + 1) * WIDTH]) for k in range(MAX_RESPONSES)]
        blind.submit_slots_with_code(store, sealed["code"], sealed["item"], rows, [None] * MAX_RESPONSES, client)
        revealed = quick.reveal_own(store, sealed["code"], client)
    except UserError as exc:  # a score missing, say: nothing saved, nothing revealed
        return keep[:-1] + [gr.update(value=f"⚠ {md_text(str(exc))}")]
    n_radios = MAX_RESPONSES * WIDTH
    return [*reveal_run(shown, sealed), *spent(n_radios), gr.update(value=reveal_table(revealed))]


def on_give_up(shown: Callable[[list[Any]], list[Any]], n_after: int, sealed: Any) -> list[Any]:
    if not isinstance(sealed, dict) or not sealed.get("results"):
        return [gr.update()] * n_after
    line = "Not rated: the outputs are shown under their methods."
    return [*reveal_run(shown, sealed), *spent(MAX_RESPONSES * WIDTH), gr.update(value=line)]


def wire(
    ctx: AppContext,
    panel: Panel,
    run_event: Any,
    status: gr.Markdown,
    last: gr.State,
    shown: Callable[[list[Any]], list[Any]],
    shown_outputs: Sequence[gr.components.Component],
    run_button: gr.Button,
    blind_button: gr.Button,
) -> None:
    """Open the panel when a blind run ends; Submit saves the scores and then reveals. `shown(results)`
    gives the updates that fill Compare's named boxes, timing table and chart (`shown_outputs`)."""
    store = store_for(ctx)
    private: dict[str, Any] = dict(api_visibility="private")
    # A new run of either kind ends the blind rating on screen; a normal Run also drops what it held.
    run_button.click(lambda: [gr.update(visible=False), None], None, [panel.box, panel.sealed], queue=False, **private)
    blind_button.click(lambda: gr.update(visible=False), None, panel.box, queue=False, **private)
    ready = handler(on_ready, store, ctx.model, shown, len(shown_outputs))
    run_event.success(ready, [panel.sealed], [*panel.form(), status, panel.sealed, last, *shown_outputs], **private)
    after = [panel.sealed, last, *shown_outputs, panel.submit, panel.give_up, *panel.radios, panel.message]
    panel.submit.click(handler(on_submit, store, shown, len(after)), [panel.sealed, *panel.radios], after, **private)
    panel.give_up.click(handler(on_give_up, shown, len(after)), [panel.sealed], after, **private)
