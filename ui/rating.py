"""The "Rate (blind)" tab: a thin layer over `arena.blind`.

A rater gets in with their invite code: typed or pasted into the code box, or from an invite link
`?invite=CODE`, which the app's HTTP layer (ui/web.py) turns into an HttpOnly cookie before the page
loads, so the code is never in the address bar or the page. A code in the box wins over the cookie.
The code names the study and the rater, and every handler checks it again on the server (wrong
codes throttled per client), since any handler can be called straight through the HTTP API. Only
labels, the prompt and the texts reach the browser. The session state (server-side) holds the
study id and the item's random public id.
"""

from __future__ import annotations

import time
from typing import Any

import gradio as gr

from arena import blind, clients, guessing, invites, pair_rating, sessions, studies
from arena.hardware import hardware_banner, storage_banner
from arena.llm import loaded_default
from arena.store import SCORE_COLUMNS, Store
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from arena.studies import quick
from common.errors import UserError
from common.messages import english

from . import AppContext, assets, rater_words, rating_pairwise, store_for
from .i18n import t
from .rater_session import code_of, enrolled
from .safe import md_text, response_html

SLOTS = studies.MAX_RESPONSES
SCORES = list(blind.FORM_SCORES)
# Each dimension's row of buttons: 1-5, then "Can't judge" (an answer, not a score: see arena/blind.py).
CHOICES: list[int | str] = [*SCORES, blind.CANT_JUDGE]
WHOLE_ITEM = "The whole item"
DEFAULT_GUIDELINES = english("rate_guidelines")
HELP = {dim: english(f"dimension_label_{dim}") for dim in SCORE_COLUMNS}  # each row's label: what to judge


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

        def on_rate(request: gr.Request, prompt_text: Any, raw: Any, last_run: Any) -> list[Any]:
            # `last` is this browser tab's server-side state: only the tab that ran the Compare has
            # results there (the prompt and raw flag it ran with, as the box may have been edited
            # since), and the quick study made of them stays with that run: pressing again reopens it.
            if isinstance(last_run, dict):
                run = dict(last_run)
            else:
                run = {"prompt": prompt_text, "raw": raw, "results": last_run}
            try:
                code = run.get("quick_code")
                if not code:
                    _, code = quick.create(
                        store_for(ctx),
                        ctx.model().name,
                        run.get("prompt") or "",
                        run.get("results") or [],
                        bool(run.get("raw", False)),
                        clients.client_of(request),
                    )
                    run["quick_code"] = code
            except UserError as exc:
                raise gr.Error(str(exc), print_exception=False) from None
            # The code goes only to this session's server-side state, and from there into the code box
            # (a fresh value each time, so that pressing again reopens the study).
            return [{"code": code, "at": time.monotonic()}, run, gr.Tabs(selected="rating")][: len(outputs)]

        outputs = [handoff, last] + ([ctx.tabs] if ctx.tabs is not None else [])
        button.click(on_rate, [prompt, raw_box, last], outputs, api_visibility="private")

    ctx.extras["quick_rate"] = wire


def _clean_session(session: Any) -> dict[str, Any]:
    return dict(session) if isinstance(session, dict) else {}


def guidelines_for(store: Store, study_id: int) -> str:
    """The study's guidelines as the organizer wrote them (Markdown, sanitised by Gradio), else the default."""
    study = store.get_study(study_id)
    return ((study.guidelines if study is not None else None) or "").strip() or DEFAULT_GUIDELINES


def rater_line(enrolment: invites.Enrolment, store: Store, lang: str = "en") -> str:
    study = store.get_study(enrolment.study_id)
    return rater_words.rater_line(enrolment.rater, study.name if study is not None else "?", lang)


def build(ctx: AppContext) -> None:
    store = store_for(ctx)
    gr.Markdown(
        english("rate_intro"),
        elem_id="rate-intro",  # hidden once a code is accepted (assets.CSS): the answers come first
    )
    loaded = loaded_default()  # the model's device, if it is loaded (a rating-only app may not load it)
    for banner in (storage_banner(), hardware_banner(loaded.device if loaded is not None else None)):
        if banner:
            gr.Markdown(banner, elem_classes=["arena-banner"])
    session = gr.State({})
    # How many response slots are on screen (0: none, and no prompt). Only the rarely used
    # handlers (Start, Previous, Next, hand-off) send visibility with their values; Submit sends
    # plain values alone, and when it changes this count the change event below re-lays out the
    # page. That keeps Submit cheap: every `gr.update` makes Gradio build a fresh component and its
    # config on the server (about 2 ms each, ~50 per view), while a plain value does not.
    layout = gr.State(0)
    with gr.Row(elem_id="rate-code-row"):
        code = gr.Textbox(
            label="Invite code or link",
            type="password",
            max_lines=1,
            scale=4,
            placeholder="opened from your invite link: leave empty",
        )
        start = gr.Button("Start / continue", variant="primary", scale=1)
    who = gr.Markdown("", elem_id="rate-who")
    progress = gr.Markdown("")
    prompt = gr.Textbox(label="Prompt", interactive=False, lines=3, visible=False, elem_id="rate-prompt")
    slot_components: list[gr.components.Component] = []
    slot_values: list[gr.components.Component] = []  # per slot: text, three radios, comment
    boxes: list[gr.Column] = []
    texts: list[gr.HTML] = []
    radios: list[gr.Radio] = []
    comments: list[gr.Textbox] = []
    with gr.Accordion("How to rate (guidelines)", open=False, visible=False, elem_id="rate-guide-box") as guide_box:
        guide = gr.Markdown(DEFAULT_GUIDELINES, elem_id="rate-guide")
    # A pairwise study (two responses, one vote) has its own panel; Start shows it instead of the form below.
    pair = rating_pairwise.build(store, code, code_of)
    gr.HTML(assets.PAGER_HTML, elem_id="rate-pager", js_on_load=assets.PAGER_JS)
    # Responses side by side (a grid of columns on a desktop, a swipe row on a phone; see assets.CSS).
    with gr.Row(elem_id="rate-responses"):
        for k in range(SLOTS):
            label = blind.LABELS[k]
            with gr.Column(visible=False, elem_classes=["rate-slot"], min_width=300) as box:
                # Markdown rendered on the server with raw HTML escaped, no image loaded and only
                # http(s)/mailto links (ui/safe.py); the region is named "Response A" for screen readers.
                text = gr.HTML("", elem_classes=["rate-response-box"], js_on_load=None)
                mine = [gr.Radio(CHOICES, label=f"{HELP[d]} ({label})", value=None) for d in blind.DIMENSIONS]
                comment = gr.Textbox(label=f"Comment on {label} (optional)", max_lines=3)
            boxes.append(box)
            texts.append(text)
            radios.extend(mine)
            comments.append(comment)
            slot_components.extend([box, text, *mine, comment])
            slot_values.extend([text, *mine, comment])
    keys_help = gr.Markdown(english("rate_keys"))
    with gr.Accordion(
        "Skip this item, or flag a problem", open=False, visible=False, elem_id="rate-feedback"
    ) as feedback_box:
        with gr.Row():
            skip_reason = gr.Dropdown(
                [(v, k) for k, v in SKIP_REASONS.items()], value=None, label="Reason to skip this item", scale=2
            )
            skip_note = gr.Textbox(label="Skip: say why (needed for Other)", max_lines=2, scale=3)
            skip_btn = gr.Button("Skip this item", scale=1)
        with gr.Row():
            flag_target = gr.Dropdown([WHOLE_ITEM], value=WHOLE_ITEM, label="Flag", scale=2)
            flag_reason = gr.Dropdown(
                [(v, k) for k, v in FLAG_REASONS.items()], value=None, label="Flag reason", scale=2
            )
            flag_note = gr.Textbox(label="Flag note (optional; needed for Other)", max_lines=2, scale=3)
            flag_btn = gr.Button("Flag", scale=1)
        gr.Markdown(english("rate_skip_note"))
    missing = gr.State([])  # (slot, dimension) pairs left empty at the last submit: marked in place
    # The blinding question(s) of the item on screen, once it is scored ({"methods", "shown"}), else
    # None; server-side, as the session. Only the methods asked about reach the page, never the answer.
    guess_ask = gr.State(None)
    with gr.Column(visible=False, elem_id="rate-guess") as guess_box:
        gr.Markdown(english("rate_guess_prompt"))
        # Every letter is a valid choice from the start (the item's own letters are set when it is
        # shown): the server checks the answer against the letters the rater was really shown.
        every = [*blind.LABELS[:SLOTS], guessing.DONT_KNOW]
        guess_radios = [gr.Radio(every, value=None, label="", visible=False) for _ in range(SLOTS)]
        guess_btn = gr.Button("Send answer and go on", variant="primary", elem_id="rate-guess-send")
    with gr.Row(elem_id="rate-submit-row") as submit_row:
        prev_btn = gr.Button("← Previous")
        submit_btn = gr.Button("Submit ratings", variant="primary", elem_id="rate-submit")
        next_btn = gr.Button("Next →")
        counter = gr.Markdown("", elem_id="rate-counter")
    status = gr.Markdown("", elem_id="rate-status")

    # Start, Previous, Next: values and visibility. Submit: values only (see `layout`).
    view_outputs = [session, layout, progress, prompt, *slot_components, guess_ask, status]
    value_outputs = [session, layout, progress, prompt, *slot_values, guess_ask, status, missing]
    layout_outputs = [prompt, guide_box, guide, *boxes, *texts, feedback_box, flag_target]

    def _parts(view: blind.RaterView | None, message: str, sess: dict[str, Any]):
        """(session, shown, progress line, prompt, [(text, scores, comment)] per slot)."""
        lang = sess.get("lang", "en")
        message = rater_words.message(message, lang)
        if view is None:
            sess = {k: v for k, v in sess.items() if k != "item"}
            return sess, 0, message, "", [("", [None] * len(blind.DIMENSIONS), "")] * SLOTS
        sess = {k: v for k, v in sess.items() if k != "guess"}
        sess = {**sess, "item": view.item, "index": view.index, "shown": len(view.responses)}
        if view.guesses:  # the methods asked about on this item, in the order of the answer boxes
            sess["guess"] = list(view.guesses)
        slots = []
        for k in range(SLOTS):
            if k < len(view.responses):
                r = view.responses[k]
                name = rater_words.say("rater_response", lang, label=r.label)
                slots.append(
                    (response_html(r.label, r.text, name), [r.scores.get(d) for d in blind.DIMENSIONS], r.comment)
                )
            else:
                slots.append(("", [None] * len(blind.DIMENSIONS), ""))
        if view.skipped:
            note = rater_words.say(
                "rater_skipped_note",
                lang,
                reason=rater_words.skip_reason(view.skipped, lang),
            )
        else:
            note = rater_words.say("rater_already_rated", lang) if view.complete else ""
        return sess, len(view.responses), f"**{rater_words.progress(view, lang)}**{note}", view.prompt, slots

    def render(view: blind.RaterView | None, message: str, sess: dict[str, Any], status_text: str = "") -> list[Any]:
        """Values and visibility for `view_outputs`; with no view, `message` takes the progress line."""
        sess, shown, line, prompt_text, slots = _parts(view, message, sess)
        ask = _guess_ask(view)
        updates: list[Any] = []
        for k, (text, scores, note) in enumerate(slots):
            visible = k < shown
            updates += [gr.update(visible=visible), gr.update(value=text, visible=visible), *scores, note]
        return [
            sess,
            shown,
            line,
            gr.update(value=prompt_text, visible=shown > 0),
            *updates,
            ask,
            rater_words.message(status_text if view is None else message, sess.get("lang", "en")),
        ]

    def _guess_ask(view: blind.RaterView | None) -> dict[str, Any] | None:
        return {"methods": list(view.guesses), "shown": len(view.responses)} if view and view.guesses else None

    def render_values(
        view: blind.RaterView | None, message: str, sess: dict[str, Any], status_text: str = ""
    ) -> list[Any]:
        """Plain values for `value_outputs`: no `gr.update`, so nothing is rebuilt on the server."""
        sess, shown, line, prompt_text, slots = _parts(view, message, sess)
        values: list[Any] = []
        for text, scores, note in slots:
            values += [text, *scores, note]
        lang = sess.get("lang", "en")
        status_line = rater_words.message(status_text if view is None else message, lang)
        return [sess, shown, line, prompt_text, *values, _guess_ask(view), status_line, []]

    def on_layout(shown: Any, sess: Any):
        """Show the slots in use, and the study's guidelines above them (open in full on a rater's
        first item)."""
        shown = shown if isinstance(shown, int) and 0 <= shown <= SLOTS else 0
        visible = [gr.update(visible=k < shown) for k in range(SLOTS)]
        sess = _clean_session(sess)
        first = sess.get("index") == 1 and shown > 0
        text = guidelines_for(store, sess["study_id"]) if sess.get("study_id") else DEFAULT_GUIDELINES
        text = t(text)  # the default guidelines in the browser's language; a study's own as written
        targets = [WHOLE_ITEM] + [f"Response {blind.LABELS[k]}" for k in range(shown)]
        return [
            gr.update(visible=shown > 0),
            gr.Accordion(visible=shown > 0, open=first),
            text,
            *visible,
            *visible,
            gr.Accordion(visible=shown > 0),
            gr.Dropdown(choices=targets, value=WHOLE_ITEM),
        ]

    def on_missing(marked: Any):
        """Mark the empty score rows in place (and clear earlier marks)."""
        marked = {tuple(m) for m in marked} if isinstance(marked, list) else set()
        return [
            gr.update(elem_classes=["rate-missing"] if (k, d) in marked else [])
            for k in range(SLOTS)
            for d in range(len(blind.DIMENSIONS))
        ]

    def fail(exc: UserError, lang: str = "en"):
        raise gr.Error(rater_words.message(str(exc), lang), print_exception=False) from None

    def opened(enrolment: invites.Enrolment, lang: str = "en") -> list[Any]:
        """The view's values for `view_outputs` + `pair_outputs`: the 1-5 form, or the pairwise panel."""
        if pair_rating.is_pairwise(store.get_study(enrolment.study_id)):
            shown = pair.start(store, enrolment)
            return [
                *render(None, "", {"study_id": enrolment.study_id, "lang": lang}),
                *shown,
                *[gr.update(visible=False)] * 2,
            ]
        view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id)
        return [*render(view, message, {"study_id": enrolment.study_id, "lang": lang}), *hidden_pair()]

    def hidden_pair() -> list[Any]:
        return [*pair.hide(), *[gr.update(visible=True)] * 2]

    def on_start(code_text: Any, sess: Any, request: gr.Request):
        lang = rater_words.language(request)
        try:
            enrolment = invites.resolve(store, code_of(code_text, request), clients.client_of(request))
            shown = opened(enrolment, lang)
        except UserError as exc:
            fail(exc, lang)
        return [rater_line(enrolment, store, lang), *shown]

    def _session_for(code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
        try:
            enrolment, sess = enrolled(store, code_text, sess, request)
        except UserError as exc:
            fail(exc, rater_words.language(request))
        return enrolment, {**sess, "lang": rater_words.language(request)}

    def on_move(step: int):
        def move(code_text: Any, sess: Any, request: gr.Request):
            try:
                enrolment, sess = _session_for(code_text, sess, request)
                total = len(studies.ready_item_ids(store, sess["study_id"]))
                if "item" in sess:
                    index = sess.get("index", 1) + step
                else:  # after the last item: Previous goes to the last one
                    index = total if step < 0 else 1
                if not 1 <= index <= total:
                    raise UserError("no earlier item" if step < 0 else "no further item: this is the last one")
                view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, index)
            except UserError as exc:
                fail(exc, rater_words.language(request))
            return render(view, message, sess)

        return move

    def on_submit(request: gr.Request, code_text: Any, sess: Any, *values: Any):
        # Wired with preprocess=False and postprocess=False (the hot path under load: each input
        # and output would otherwise take its own hop through a worker thread), so the inputs
        # arrive as the client sent them; blind.check_form checks them as Gradio would.
        try:
            enrolment, sess = _session_for(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen to rate")
            triples, notes = blind.check_form(values, SLOTS)
            shown = int(sess.get("shown") or 0)
            empty = [(k, d) for k in range(shown) for d in range(len(blind.DIMENSIONS)) if triples[k][d] is None]
            if shown and empty:
                # Nothing is lost and nothing turns red but the empty rows: the page keeps what was
                # entered, one line says what is missing, and the missing rows are marked in place.
                view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, sess["index"])
                out = render_values(view, "", sess)
                for k in range(SLOTS):
                    base = 4 + k * 5
                    out[base + 1 : base + 4] = list(triples[k])
                    out[base + 4] = notes[k] or ""
                where = ", ".join(
                    f"{blind.LABELS[k]} · {rater_words.dimension(d, sess.get('lang', 'en'))}" for k, d in empty
                )
                out[-2] = rater_words.say(
                    "rater_not_saved_yet",
                    sess.get("lang", "en"),
                    scored=3 * shown - len(empty),
                    needed=3 * shown,
                    where=where,
                )
                out[-1] = [list(m) for m in empty]
                return out
            # One transaction: the save and the next item; committed before the page moves on.
            view, message = blind.submit_slots_then_next(store, enrolment, sess["item"], triples, notes)
        except UserError as exc:
            fail(exc, rater_words.language(request))
        if view is None:
            return render_values(None, message, sess, "Saved.")
        if view.guesses and view.item == sess["item"]:
            return render_values(view, "Saved. One more question about this item, below.", sess)
        return render_values(view, "Saved. Here is the next item.", sess)

    def on_guess(request: gr.Request, code_text: Any, sess: Any, *values: Any):
        """The answer to "Which response do you think came from METHOD?", then the next item. The reply
        is the same whatever the answer: nothing on the page says whether it was right."""
        try:
            enrolment, sess = _session_for(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen")
            asked = sess.get("guess") or []
            if len(values) != SLOTS:
                raise UserError("malformed request")
            view, message = blind.guess_then_next(store, enrolment, sess["item"], dict(zip(asked, values)))
        except UserError as exc:
            fail(exc, rater_words.language(request))
        if view is None:
            return render_values(None, message, sess, "Thank you.")
        return render_values(view, "Thank you. Here is the next item.", sess)

    def on_guess_layout(ask: Any):
        """Show the question(s) of the item on screen, with its letters and "Don't know"; hide them otherwise."""
        methods = list(ask.get("methods") or []) if isinstance(ask, dict) else []
        shown = int(ask.get("shown") or 0) if isinstance(ask, dict) else 0
        choices = [*blind.LABELS[:shown], guessing.DONT_KNOW]
        radios = [
            gr.Radio(choices=choices, value=None, label=guessing.question(methods[j]), visible=True)
            if j < len(methods)
            else gr.Radio(value=None, label="", visible=False)
            for j in range(SLOTS)
        ]
        return [gr.Column(visible=bool(methods)), *radios]

    def on_skip(code_text: Any, sess: Any, reason: Any, note: Any, request: gr.Request):
        """Skip the item on screen with a reason and move to the next one; what was entered on this
        item is not saved (a skipped item has no scores), which the button's label says."""
        try:
            enrolment, sess = _session_for(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen to skip")
            if reason in (None, ""):
                raise UserError("choose a reason to skip this item")
            note = note if isinstance(note, str) else None
            view, message = blind.skip_then_next(store, enrolment, sess["item"], reason, note)
        except UserError as exc:
            fail(exc, rater_words.language(request))
        out = (
            render_values(None, message, sess, "Skipped.")
            if view is None
            else render_values(view, "Skipped. Here is the next item.", sess)
        )
        return [*out, None, ""]

    def on_flag(code_text: Any, sess: Any, target: Any, reason: Any, note: Any, request: gr.Request):
        """Flag the item or one response of it; only the status line and the note box change, so
        every score on screen stays as it is."""
        try:
            enrolment, sess = _session_for(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen to flag")
            if reason in (None, ""):
                raise UserError("choose a reason for the flag")
            label = None
            if target not in (None, "", WHOLE_ITEM):
                if not isinstance(target, str) or not target.startswith("Response "):
                    raise UserError("choose what to flag: the whole item or one response")
                label = target.removeprefix("Response ")
            new = blind.flag_for(store, enrolment, sess["item"], label, reason, note if isinstance(note, str) else None)
        except UserError as exc:
            fail(exc, rater_words.language(request))
        lang = sess.get("lang", "en")
        what = (
            rater_words.say("rater_this_item", lang)
            if label is None
            else rater_words.say("rater_response_lower", lang, label=label)
        )
        why = rater_words.flag_reason(reason, lang)
        line = (
            rater_words.say(
                "rater_flagged",
                lang,
                what=what,
                reason=md_text(why),
            )
            if new
            else rater_words.say("rater_already_flagged", lang, what=what)
        )
        return line, ""

    def on_handoff(handoff: Any, sess: Any, request: gr.Request):
        if not isinstance(handoff, dict) or "code" not in handoff:
            return [gr.update()] * (2 + len(view_outputs) + len(pair_outputs))
        lang = rater_words.language(request)
        try:
            enrolment = invites.resolve(store, handoff["code"])
            shown = opened(enrolment, lang)  # a quick rating is always 1-5: this also hides a pairwise panel
        except UserError as exc:
            return [gr.update(), ""] + render(None, str(exc), {"lang": lang}) + hidden_pair()
        return [handoff["code"], rater_line(enrolment, store, lang)] + shown

    tab = [ctx.tabs] if ctx.tabs is not None else []

    def on_load(sess: Any, request: gr.Request):
        """An invite link opens the study: its cookie (ui/web.py made it from ?invite=CODE). Never a code
        in a request's address: a proxy's log of query strings would hold it (issue 32). The code box
        stays empty."""
        given = clients.cookie(request, sessions.RATER_COOKIE)
        if not given:
            return [gr.update()] * (2 + len(view_outputs) + len(pair_outputs) + len(tab))
        switch = [gr.Tabs(selected="rating")] * len(tab)
        lang = rater_words.language(request)
        try:
            enrolment = invites.resolve(store, given, clients.client_of(request))
            shown = opened(enrolment, lang)
        except UserError as exc:
            return [gr.update(), ""] + render(None, str(exc), {"lang": lang}) + hidden_pair() + switch
        return [gr.update(), rater_line(enrolment, store, lang)] + shown + switch

    pair_outputs = [*pair.outputs, submit_row, keys_help]
    start_outputs = [who, *view_outputs, *pair_outputs]
    start.click(on_start, [code, session], start_outputs, api_name="rate_start")
    code.submit(on_start, [code, session], start_outputs, api_visibility="private")
    submitted = submit_btn.click(
        on_submit,
        [code, session, *radios, *comments],
        value_outputs,
        api_name="rate_submit",
        preprocess=False,
        postprocess=False,
    )
    submitted.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    skipped = skip_btn.click(
        on_skip, [code, session, skip_reason, skip_note], [*value_outputs, skip_reason, skip_note], api_name="rate_skip"
    )
    skipped.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    flag_btn.click(
        on_flag, [code, session, flag_target, flag_reason, flag_note], [status, flag_note], api_name="rate_flag"
    )
    missing.change(on_missing, [missing], radios, api_visibility="private", show_progress="hidden")
    guess_ask.change(
        on_guess_layout, [guess_ask], [guess_box, *guess_radios], api_visibility="private", show_progress="hidden"
    )
    guessed = guess_btn.click(on_guess, [code, session, *guess_radios], value_outputs, api_name="rate_guess")
    guessed.then(None, None, None, js=assets.FOCUS_PROMPT_JS)
    for radio in radios:
        radio.change(None, None, counter, js=assets.COUNT_JS)
    layout.change(on_layout, [layout, session], layout_outputs, api_visibility="private", show_progress="hidden")
    prev_btn.click(on_move(-1), [code, session], view_outputs, api_name="rate_previous").then(
        None, None, None, js=assets.RESET_PAGER_JS
    )
    next_btn.click(on_move(+1), [code, session], view_outputs, api_name="rate_next").then(
        None, None, None, js=assets.RESET_PAGER_JS
    )
    handoff_state(ctx).change(
        on_handoff, [handoff_state(ctx), session], [code, who] + view_outputs + pair_outputs, api_visibility="private"
    )
    ctx.extras.setdefault("loaders", []).append((on_load, [session], [code, who] + view_outputs + pair_outputs + tab))
