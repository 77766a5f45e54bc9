"""The "Rate (blind)" tab: layout and wiring over ui/rate/handlers.py (the rating form, whose question
rows follow the study's rubric: ui/rate/rubric_form.py) and ui/rate/pairwise.py (the pairwise panel),
both thin layers over `arena.rating.blind` and `arena.rating.pair_rating`.

A rater gets in with their invite code: typed or pasted into the code box, or from an invite link,
which the app's HTTP layer (ui/web.py) turns into an HttpOnly cookie before the page loads, so the code
is never in the address bar or the page. A code in the box wins over the cookie, and either over a
Hugging Face account signed in on the browser (ui/hf_signin.py), which is the third way in. Only labels, the
prompt and the texts reach the browser. What each handler returns, and its wire format, is
ui/rate/view.py.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import gradio as gr

from arena.model.hardware import hardware_banner, storage_banner
from arena.model.llm import loaded_default
from arena.rating import blind, guessing
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from common.messages import english
from common.rubric import DEFAULT_RUBRIC

from .. import AppContext, assets, hf_signin, store_for
from ..handler import handler
from . import handlers as h
from . import once, pairwise, rubric_form
from .guidelines import DEFAULT_GUIDELINES
from .view import SLOTS, RateView

# The buttons held from a click until the next item has been on screen a moment (ui/rate/once.py).
SUBMITS = "#rate-submit"
GUESS_SEND = "#rate-guess-send"


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
        outputs = [handoff_state(ctx), last] + ([ctx.tabs] if ctx.tabs is not None else [])
        rate = handler(h.on_rate, store_for(ctx), ctx.model, wire=lambda v: v[: len(outputs)])
        button.click(rate, [prompt, raw_box, last], outputs, api_visibility="private")

    ctx.extras["quick_rate"] = wire


def build(ctx: AppContext) -> None:
    """The tab: the code row, the form (response slots side by side), the pairwise panel, the skip and
    flag controls, the blind question and the submit row; then the wiring."""
    store = store_for(ctx)
    gr.Markdown(english("rate_intro"), elem_id="rate-intro")  # hidden once a code is accepted (assets.CSS)
    loaded = loaded_default()  # the model's device, if it is loaded (a rating-only app may not load it)
    for banner in (storage_banner(), hardware_banner(loaded.device if loaded is not None else None)):
        if banner:
            gr.Markdown(banner, elem_classes=["arena-banner"])
    c = _code_row()
    with gr.Accordion("How to rate (guidelines)", open=False, visible=False, elem_id="rate-guide-box") as guide_box:
        c.guide = gr.Markdown(DEFAULT_GUIDELINES, elem_id="rate-guide")
    c.guide_box = guide_box
    # A pairwise study (two responses, one vote) has its own panel; Start shows it instead of the form below.
    c.pair = pairwise.build(store, c.code)
    gr.HTML(assets.PAGER_HTML, elem_id="rate-pager", js_on_load=assets.PAGER_JS)
    _guess_box(c)  # above the responses: after Submit it takes their place (on_guess_layout)
    _response_slots(c)
    c.keys_help = gr.Markdown(english("rate_keys"))
    _feedback(c)
    _submit_row(c)
    _wire(ctx, store, c)
    _wire_rubric(store, c)


def _wire_rubric(store: Any, c: SimpleNamespace) -> None:
    """The question rows follow the study's rubric (ui/rate/rubric_form.py): laid out after anything
    that shows an item, when the study asks other questions than the rows show; then the counter."""
    c.laid = gr.State(DEFAULT_RUBRIC.to_json())  # the rubric the rows ask: the page is built with the default's
    refresh = handler(rubric_form.on_refresh, store)
    private: dict[str, Any] = dict(api_visibility="private", show_progress="hidden")
    for event in c.shows_item:  # only after an item was shown: a refused event has nothing to lay out
        event.success(refresh, [c.code, c.session, c.laid], [c.laid, *c.radios, *c.comments], **private).then(
            None, None, c.counter, js=assets.COUNT_JS, **private
        )


def _code_row() -> SimpleNamespace:
    c = SimpleNamespace()
    c.session = gr.State({})
    # How many response slots are on screen (0: none, and no prompt). Only the rarely used handlers
    # (Start, Previous, Next, hand-off) send visibility with their values; Submit sends plain values
    # alone, and when it changes this count the change event below re-lays out the page. That keeps
    # Submit cheap: every `gr.update` makes Gradio build a fresh component and its config on the server
    # (about 2 ms each, ~50 per view), while a plain value does not.
    c.layout = gr.State(0)
    with gr.Row(elem_id="rate-code-row"):
        c.code = gr.Textbox(
            label="Invite code or link",
            type="password",
            max_lines=1,
            scale=4,
            placeholder="opened from your invite link: leave empty",
        )
        c.start = gr.Button("Start / continue", variant="primary", scale=1)
    # Where raters may sign in with Hugging Face instead (ui/hf_signin.py); outside the code row, which
    # hides once a study is open, since the same button then signs out.
    hf_signin.login_button()
    c.who = gr.Markdown("", elem_id="rate-who")
    c.progress = gr.Markdown("")
    c.prompt = gr.Textbox(label="Prompt", interactive=False, lines=3, visible=False, elem_id="rate-prompt")
    return c


def _response_slots(c: SimpleNamespace) -> None:
    """Responses side by side (a grid of columns on a desktop, a swipe row on a phone; see assets.CSS)."""
    c.boxes, c.texts, c.radios, c.comments, c.slot_components, c.slot_values = [], [], [], [], [], []
    with gr.Row(elem_id="rate-responses") as c.responses_row:
        for k in range(SLOTS):
            label = blind.LABELS[k]
            with gr.Column(visible=False, elem_classes=["rate-slot"], min_width=300) as box:
                # Markdown rendered on the server with raw HTML escaped, no image loaded and only
                # http(s)/mailto links (ui/safe.py); the region is named "Response A" for screen readers.
                text = gr.HTML("", elem_classes=["rate-response-box"], js_on_load=None)
                # the study's questions, each a row of its points then "Can't judge" (an answer, not a
                # score: see arena/rating/blind.py)
                mine = rubric_form.rows(label)
                comment = gr.Textbox(label=f"Comment on {label} (optional)", max_lines=3)
            c.boxes.append(box)
            c.texts.append(text)
            c.radios.extend(mine)
            c.comments.append(comment)
            c.slot_components.extend([box, text, *mine, comment])
            c.slot_values.extend([text, *mine, comment])


def _feedback(c: SimpleNamespace) -> None:
    with gr.Accordion(
        "Skip this item, or flag a problem", open=False, visible=False, elem_id="rate-feedback"
    ) as c.feedback_box:
        with gr.Row():
            c.skip_reason = gr.Dropdown(
                [(v, k) for k, v in SKIP_REASONS.items()], value=None, label="Reason to skip this item", scale=2
            )
            c.skip_note = gr.Textbox(label="Skip: say why (needed for Other)", max_lines=2, scale=3)
            c.skip_btn = gr.Button("Skip this item", scale=1)
        with gr.Row():
            c.flag_target = gr.Dropdown([h.WHOLE_ITEM], value=h.WHOLE_ITEM, label="Flag", scale=2)
            c.flag_reason = gr.Dropdown(
                [(v, k) for k, v in FLAG_REASONS.items()], value=None, label="Flag reason", scale=2
            )
            c.flag_note = gr.Textbox(label="Flag note (optional; needed for Other)", max_lines=2, scale=3)
            c.flag_btn = gr.Button("Flag", scale=1)
        gr.Markdown(english("rate_skip_note"))


def _guess_box(c: SimpleNamespace) -> None:
    """The blind question of the item on screen, shown once it is scored, in the responses' place."""
    # The blinding question(s) of the item on screen, once it is scored ({"methods", "shown"}), else
    # None; server-side, as the session. Only the methods asked about reach the page, never the answer.
    c.guess_ask = gr.State(None)
    with gr.Column(visible=False, elem_id="rate-guess") as c.guess_box:
        gr.Markdown(english("rate_guess_prompt"))
        # Every letter is a valid choice from the start (the item's own letters are set when it is
        # shown): the server checks the answer against the letters the rater was really shown.
        every = [*blind.LABELS[:SLOTS], guessing.DONT_KNOW]
        c.guess_radios = [gr.Radio(every, value=None, label="", visible=False) for _ in range(SLOTS)]
        c.guess_btn = gr.Button("Send answer and go on", variant="primary", elem_id="rate-guess-send")


def _submit_row(c: SimpleNamespace) -> None:
    c.missing = gr.State([])  # (slot, dimension) pairs left empty at the last submit: marked in place
    with gr.Row(elem_id="rate-submit-row") as c.submit_row:
        c.prev_btn = gr.Button("← Previous")
        c.submit_btn = gr.Button("Submit ratings", variant="primary", elem_id="rate-submit")
        c.next_btn = gr.Button("Next →", elem_id="rate-next")
        c.counter = gr.Markdown("", elem_id="rate-counter")
    c.status = gr.Markdown("", elem_id="rate-status")
    # The position of the item on screen, set by every reply and sent back with Submit, which is applied
    # only to that item (ui/rate/once.py): a re-sent or double-tapped Submit does not land on the next one.
    # (0 = none named: the default gradio_client sends for a caller that leaves it out)
    c.item_for = gr.Number(0, precision=0, visible=False, elem_id="rate-item-for")


def _wire(ctx: AppContext, store: Any, c: SimpleNamespace) -> None:
    # Start, Previous, Next: values and visibility (RateView.laid_out). Submit: values only (RateView.values).
    view_outputs = [c.session, c.layout, c.progress, c.prompt, *c.slot_components, c.guess_ask, c.status, c.item_for]
    value_outputs = [
        c.session, c.layout, c.progress, c.prompt, *c.slot_values, c.guess_ask, c.status, c.missing, c.item_for,
    ]  # fmt: skip
    layout_outputs = [c.prompt, c.guide_box, c.guide, *c.boxes, *c.texts, c.feedback_box, c.flag_target]
    opened_outputs = [c.who, *view_outputs, *c.pair.outputs, c.submit_row, c.keys_help]
    private: dict[str, Any] = dict(api_visibility="private")
    start = handler(h.on_start, store, wire=h.Opened.values)
    c.shows_item = [  # the events after which the rows follow the study's rubric
        c.start.click(start, [c.code, c.session], opened_outputs, api_name="rate_start", api_visibility="undocumented"),
        c.code.submit(start, [c.code, c.session], opened_outputs, **private),
    ]
    submit = handler(h.on_submit, store, wire=RateView.values)
    c.submit_btn.click(None, None, None, js=once.hold_js(SUBMITS), **private)
    submitted = c.submit_btn.click(
        submit, [c.code, c.session, *c.radios, *c.comments, c.item_for], value_outputs, api_name="rate_submit", api_visibility="undocumented",
        preprocess=False, postprocess=False,
    )  # fmt: skip
    submitted.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    submitted.then(None, None, None, js=once.release_js(SUBMITS))
    skip_outputs = [*value_outputs, c.skip_reason, c.skip_note]
    skip_inputs = [c.code, c.session, c.skip_reason, c.skip_note, c.item_for]
    skipped = c.skip_btn.click(
        handler(h.on_skip, store), skip_inputs, skip_outputs, api_name="rate_skip", api_visibility="undocumented"
    )
    skipped.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    c.shows_item.append(skipped)
    flag_inputs = [c.code, c.session, c.flag_target, c.flag_reason, c.flag_note, c.item_for]
    c.flag_btn.click(
        handler(h.on_flag, store),
        flag_inputs,
        [c.status, c.flag_note],
        api_name="rate_flag",
        api_visibility="undocumented",
    )
    c.missing.change(handler(rubric_form.on_missing, store), [c.missing, c.session], c.radios, show_progress="hidden",
                     **private)  # fmt: skip
    c.guess_ask.change(
        h.on_guess_layout, [c.guess_ask], [c.guess_box, *c.guess_radios, c.responses_row], show_progress="hidden",
        **private,
    ).then(None, None, None, js=assets.FOCUS_GUESS_JS)  # fmt: skip
    guess = handler(h.on_guess, store, wire=RateView.values)
    c.guess_btn.click(None, None, None, js=once.hold_js(GUESS_SEND), **private)
    guess_inputs = [c.code, c.session, *c.guess_radios, c.item_for]
    guessed = c.guess_btn.click(
        guess, guess_inputs, value_outputs, api_name="rate_guess", api_visibility="undocumented"
    )
    guessed.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    guessed.then(None, None, None, js=once.release_js(GUESS_SEND))
    c.shows_item.append(guessed)
    for radio in c.radios:
        radio.change(None, None, c.counter, js=assets.COUNT_JS)
    layout = handler(h.on_layout, store)
    c.shows_item.append(
        c.layout.change(layout, [c.layout, c.session], layout_outputs, show_progress="hidden", **private)
    )
    for button, step, name in ((c.prev_btn, -1, "rate_previous"), (c.next_btn, +1, "rate_next")):
        move = handler(h.on_move, store, step, wire=RateView.laid_out)
        moved = button.click(move, [c.code, c.session], view_outputs, api_name=name, api_visibility="undocumented")
        moved.then(None, None, None, js=assets.RESET_PAGER_JS)
        c.shows_item.append(moved)
    handoff = handoff_state(ctx)
    handoff.change(handler(h.on_handoff, store), [handoff, c.session], [c.code, *opened_outputs], **private)
    tabs = [ctx.tabs] if ctx.tabs is not None else []
    load = handler(h.on_load, store, bool(tabs))
    ctx.extras.setdefault("loaders", []).append((load, [c.session], [c.code, *opened_outputs, *tabs]))
