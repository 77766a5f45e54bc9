"""The "Rate (blind)" tab: a thin layer over `arena.blind`.

Only labels, the prompt and the texts reach the browser. The session state holds the rater's name,
the study id and the item's random public id, nothing else; every handler re-validates its input
on the server, since any of them can be called straight through the HTTP API.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from .. import blind, studies
from ..errors import UserError
from ..store import Store, get_store
from . import AppContext

SLOTS = studies.MAX_RESPONSES
SCORES = [1, 2, 3, 4, 5]
HELP = {
    "coherence": "Coherence: logical, consistent, on topic",
    "informativeness": "Informativeness / creativity: says something useful or interesting",
    "naturalness": "Naturalness: reads like fluent human writing",
}


def store_for(ctx: AppContext) -> Store:
    """The app's store: `ctx.extras["store"]` when a caller set one, else the one from the environment."""
    store = ctx.extras.get("store")
    if store is None:
        store = ctx.extras["store"] = get_store()
    return store


def study_choices(store: Store) -> list[tuple[str, int]]:
    """Studies with items ready to rate, newest first. Raters see these labels."""
    out = []
    for s in store.list_studies():
        n = len(studies.ready_item_ids(store, s["id"]))
        if n:
            out.append((f"{s['name']} ({n} item{'s' if n != 1 else ''})", int(s["id"])))
    return out


def handoff_state(ctx: AppContext) -> gr.State:
    """The server-side slot through which the Compare tab hands a quick item to this tab."""
    state = ctx.extras.get("blind_handoff")
    if state is None:
        state = ctx.extras["blind_handoff"] = gr.State(None)
    return state


def install_quick_rate(ctx: AppContext) -> None:
    """Register `ctx.extras["quick_rate"]`, which the Compare tab calls with its button, prompt box,
    raw checkbox and last-results state; must run before the Compare tab is built."""

    def wire(button: gr.Button, prompt: gr.Textbox, raw_box: gr.Checkbox, last: gr.State) -> None:
        handoff = handoff_state(ctx)

        def on_rate(prompt_text: str, raw: bool, last_run: Any) -> tuple[dict, Any]:
            # The Compare tab keeps the prompt it ran with: the box may have been edited since.
            if isinstance(last_run, dict):
                prompt_text, raw, results = last_run.get("prompt", ""), last_run.get("raw", False), last_run.get("results")
            else:
                results = last_run
            try:
                study_id, item_id = studies.quick_item(store_for(ctx), ctx.model().name, prompt_text, results or [], raw)
            except UserError as exc:
                raise gr.Error(str(exc), print_exception=False) from None
            return {"study_id": study_id, "item_id": item_id}, gr.Tabs(selected="rating")

        outputs = [handoff] + ([ctx.tabs] if ctx.tabs is not None else [])
        button.click(lambda p, r, res: on_rate(p, r, res)[: len(outputs)], [prompt, raw_box, last], outputs,
                     api_visibility="private")

    ctx.extras["quick_rate"] = wire


def _clean_session(session: Any) -> dict[str, Any]:
    return dict(session) if isinstance(session, dict) else {}


def build(ctx: AppContext) -> None:
    store = store_for(ctx)
    gr.Markdown(
        "Rate each response from 1 (poor) to 5 (excellent). The responses come from different decoding "
        "methods; which is which stays hidden, and their order differs between items and raters. "
        "Your ratings are saved when you press **Submit**; you can go back and change them."
    )
    session = gr.State({})
    # How many response slots are on screen (0: none, and no prompt). Only the rarely used
    # handlers (Start, Previous, Next, hand-off) send visibility with their values; Submit sends
    # plain values alone, and when it changes this count the change event below re-lays out the
    # page. That keeps Submit cheap: every `gr.update` makes Gradio build a fresh component and its
    # config on the server (about 2 ms each, ~50 per view), while a plain value does not.
    layout = gr.State(0)
    with gr.Row():
        rater = gr.Textbox(label="Your name or rater code", max_lines=1, scale=2)
        study = gr.Dropdown(choices=study_choices(store), value=None, label="Study", allow_custom_value=True, scale=3)
        refresh = gr.Button("Refresh list", scale=0)
        start = gr.Button("Start / continue", variant="primary", scale=1)
    progress = gr.Markdown("")
    prompt = gr.Textbox(label="Prompt", interactive=False, lines=3, visible=False)
    slot_components: list[gr.components.Component] = []
    slot_values: list[gr.components.Component] = []  # per slot: text, three radios, comment
    boxes: list[gr.Group] = []
    texts: list[gr.Textbox] = []
    radios: list[gr.Radio] = []
    comments: list[gr.Textbox] = []
    for k in range(SLOTS):
        label = blind.LABELS[k]
        with gr.Group(visible=False) as box:
            # Textbox, not Markdown: a model's output is shown as text, never run as markup.
            text = gr.Textbox(label=f"Response {label}", interactive=False, lines=6)
            with gr.Row():
                mine = [gr.Radio(SCORES, label=HELP[d], value=None) for d in blind.DIMENSIONS]
            comment = gr.Textbox(label=f"Comment on {label} (optional)", max_lines=3)
        boxes.append(box)
        texts.append(text)
        radios.extend(mine)
        comments.append(comment)
        slot_components.extend([box, text, *mine, comment])
        slot_values.extend([text, *mine, comment])
    with gr.Row():
        prev_btn = gr.Button("← Previous")
        submit_btn = gr.Button("Submit ratings", variant="primary")
        next_btn = gr.Button("Next →")
    status = gr.Markdown("")

    # Start, Previous, Next: values and visibility. Submit: values only (see `layout`).
    view_outputs = [session, layout, progress, prompt, *slot_components, status]
    value_outputs = [session, layout, progress, prompt, *slot_values, status]
    layout_outputs = [prompt, *boxes, *texts]

    def _parts(view: blind.RaterView | None, message: str, sess: dict[str, Any]):
        """(session, shown, progress line, prompt, [(text, scores, comment)] per slot)."""
        if view is None:
            sess = {k: v for k, v in sess.items() if k != "item"}
            return sess, 0, message, "", [("", [None] * len(blind.DIMENSIONS), "")] * SLOTS
        sess = {**sess, "item": view.item, "index": view.index}
        slots = []
        for k in range(SLOTS):
            if k < len(view.responses):
                r = view.responses[k]
                slots.append((r.text, [r.scores.get(d) for d in blind.DIMENSIONS], r.comment))
            else:
                slots.append(("", [None] * len(blind.DIMENSIONS), ""))
        note = " · already rated: submitting again updates your ratings" if view.complete else ""
        return sess, len(view.responses), f"**{view.progress}**{note}", view.prompt, slots

    def render(view: blind.RaterView | None, message: str, sess: dict[str, Any], status_text: str = "") -> list[Any]:
        """Values and visibility for `view_outputs`; with no view, `message` takes the progress line."""
        sess, shown, line, prompt_text, slots = _parts(view, message, sess)
        updates: list[Any] = []
        for k, (text, scores, note) in enumerate(slots):
            visible = k < shown
            updates += [gr.update(visible=visible), gr.update(value=text, visible=visible), *scores, note]
        return [sess, shown, line, gr.update(value=prompt_text, visible=shown > 0), *updates,
                status_text if view is None else message]

    def render_values(view: blind.RaterView | None, message: str, sess: dict[str, Any],
                      status_text: str = "") -> list[Any]:
        """Plain values for `value_outputs`: no `gr.update`, so nothing is rebuilt on the server."""
        sess, shown, line, prompt_text, slots = _parts(view, message, sess)
        values: list[Any] = []
        for text, scores, note in slots:
            values += [text, *scores, note]
        return [sess, shown, line, prompt_text, *values, status_text if view is None else message]

    def on_layout(shown: Any):
        shown = shown if isinstance(shown, int) and 0 <= shown <= SLOTS else 0
        visible = [gr.update(visible=k < shown) for k in range(SLOTS)]
        return [gr.update(visible=shown > 0), *visible, *visible]

    def fail(exc: UserError):
        raise gr.Error(str(exc), print_exception=False) from None

    def on_start(name: str, study_id: Any, sess: Any):
        try:
            view, message = blind.open_item(store, name, study_id)
        except UserError as exc:
            fail(exc)
        return render(view, message, {"rater": " ".join(str(name).split()), "study_id": int(study_id)})

    def _session_for(name: Any, sess: Any) -> dict[str, Any]:
        sess = _clean_session(sess)
        if not sess.get("study_id") or not sess.get("rater"):
            raise UserError("enter your name, choose a study and press Start")
        if not isinstance(name, str) or " ".join(name.split()) != sess["rater"]:
            raise UserError("the name changed: press Start to continue under the new name")
        return sess

    def on_move(step: int):
        def move(name: str, sess: Any):
            try:
                sess = _session_for(name, sess)
                if "item" in sess:
                    index = sess.get("index", 1) + step
                else:  # after the last item: Previous goes to the last one
                    index = len(studies.ready_item_ids(store, sess["study_id"])) if step < 0 else 1
                total = len(studies.ready_item_ids(store, sess["study_id"]))
                if not 1 <= index <= total:
                    raise UserError("no earlier item" if step < 0 else "no further item: this is the last one")
                view, message = blind.open_item(store, name, sess["study_id"], index)
            except UserError as exc:
                fail(exc)
            return render(view, message, sess)
        return move

    def on_submit(name: Any, sess: Any, *values: Any):
        # Wired with preprocess=False and postprocess=False (the hot path under load: each input
        # and output would otherwise take its own hop through a worker thread), so the inputs
        # arrive as the client sent them and are checked here as Gradio would: the name and the
        # comments are text, a score is one of SCORES (the store checks 1..5 again).
        try:
            sess = _session_for(name, sess)
            if "item" not in sess:
                raise UserError("there is no item on screen to rate")
            n_scores = SLOTS * len(blind.DIMENSIONS)
            if len(values) != n_scores + SLOTS:
                raise UserError("malformed request")
            for v in values[:n_scores]:
                if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v not in SCORES):
                    raise UserError(f"a score must be one of {SCORES}, got {v!r}")
            notes = values[n_scores:]
            if any(v is not None and not isinstance(v, str) for v in notes):
                raise UserError("a comment must be text")
            triples = [values[k * 3:(k + 1) * 3] for k in range(SLOTS)]
            blind.submit_slots(store, name, sess["item"], triples, notes)  # committed before we move on
            view, message = blind.open_item(store, name, sess["study_id"])
        except UserError as exc:
            fail(exc)
        if view is None:
            return render_values(None, message, sess, "Saved.")
        return render_values(view, "Saved. Here is the next item.", sess)

    def on_refresh():
        return gr.update(choices=study_choices(store))

    def on_handoff(handoff: Any, name: str, sess: Any):
        if not isinstance(handoff, dict) or "study_id" not in handoff:
            return [gr.update()] + [gr.update()] * len(view_outputs)
        study_id = int(handoff["study_id"])
        dropdown = gr.update(choices=study_choices(store), value=study_id)
        if not (name or "").strip():
            message = "Enter your name or rater code, then press **Start** to rate these outputs blind."
            return [dropdown] + render(None, message, {})
        try:
            view, message = blind.open_item(store, name, study_id)
        except UserError as exc:
            return [dropdown] + render(None, str(exc), {})
        return [dropdown] + render(view, message, {"rater": " ".join(name.split()), "study_id": study_id})

    start.click(on_start, [rater, study, session], view_outputs, api_name="rate_start")
    rater.submit(on_start, [rater, study, session], view_outputs, api_visibility="private")
    submit_btn.click(on_submit, [rater, session, *radios, *comments], value_outputs, api_name="rate_submit",
                     preprocess=False, postprocess=False)
    layout.change(on_layout, [layout], layout_outputs, api_visibility="private", show_progress="hidden")
    prev_btn.click(on_move(-1), [rater, session], view_outputs, api_name="rate_previous")
    next_btn.click(on_move(+1), [rater, session], view_outputs, api_name="rate_next")
    refresh.click(on_refresh, None, study, api_name="rate_studies")
    handoff_state(ctx).change(on_handoff, [handoff_state(ctx), rater, session], [study] + view_outputs,
                              api_visibility="private")
