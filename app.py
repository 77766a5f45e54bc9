"""Decoding Arena: the Gradio app. Start with `bash scripts/start.sh` (see README)."""

from __future__ import annotations

import importlib
import logging
import os
import sys

# Read raw, before arena.settings: importing any project module imports torch, and `spaces` must come first.
if os.environ.get("SPACES_ZERO_GPU"):
    import spaces  # noqa: F401  # ZeroGPU must be imported before anything initialises CUDA

import gradio as gr
from starlette.middleware import Middleware

from arena import settings
from arena.access import clients, invites
from arena.model import compute, llm
from arena.store import get_store
from common.errors import UserError
from common.messages import english
from ui import AppContext, assets, i18n, join_gate, launch, log_privacy, one_app, quiet_queue, store_for, web

# (tab label, tab id). Each tab is a module or package under ui/ (MODULES), imported only when built.
TABS: list[tuple[str, str]] = [
    ("Compare", "compare"),
    ("Rate (blind)", "rating"),
    ("Results", "results"),
    ("Organizer", "organizer"),
    ("Multi-arm trace", "trace"),
]
MODULES = {"rating": "ui.rate"}  # a tab whose module is not named as its id (links select tabs by id)
# ARENA_MODE=rating: a deployment for raters only (no Compare, no trace: nothing that generates, so
# nothing that could replay a study's prompt), plus the published Results.
MODES: dict[str, tuple[str, ...]] = {"full": tuple(m for _, m in TABS), "rating": ("rating", "results")}
# Waiting events beyond this are refused at once ("queue full") instead of piling up. Generation's
# share of it is capped lower (ARENA_COMPARE_QUEUE, ui/admission.py), so raters always find room.
QUEUE_MAX_SIZE = 1024
MAX_FILE_SIZE = "10mb"  # uploads (organizer only, ui/web.py): prompt files and rating exports
# Gradio's temporary files (uploads, downloads) older than an hour go, checked every 10 minutes.
DELETE_CACHE = (600, 3600)
HEADER = english("app_header")


def current_settings() -> settings.Settings:
    """The settings, or exit code 2 with the one line that says which one cannot be read."""
    try:
        return settings.current()
    except settings.SettingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def app_mode() -> str:
    """ARENA_MODE (arena/settings.py reads it), or exit code 2 with the line that says why not."""
    return current_settings().mode


def build_app(ctx: AppContext | None = None) -> gr.Blocks:
    """The main page (the tabs of ARENA_MODE) and the rating-only page `/rate` that invite links open."""
    ctx = ctx or AppContext()
    shown = MODES[app_mode()]
    from arena.studies import reserved  # late, as the tabs' modules: they read the settings main() installs
    from ui import api, rate
    from ui.rate import footer as rate_footer

    # Every run that serves the app (Compare, the trace) refuses the prompts of this store's studies.
    reserved.protect(lambda: store_for(ctx))
    rate.install_quick_rate(ctx)  # before the Compare tab is built: it adds the "Send these to the Rate tab" button
    with gr.Blocks(title="Decoding Arena", delete_cache=DELETE_CACHE) as demo:
        # Two pages, and neither links to the other. "hidden", not False: Gradio renders no invisible
        # component, and the navbar's setting is read from the rendered one.
        gr.Navbar(visible="hidden", main_page_name=False)  # type: ignore[arg-type]
        gr.Markdown(HEADER)
        with gr.Tabs() as tabs:
            ctx.tabs = tabs
            for label, module in TABS:
                if module not in shown:
                    continue
                with gr.Tab(label, id=module):
                    importlib.import_module(MODULES.get(module, f"ui.{module}")).build(ctx)
        _add_loaders(demo, ctx)
        # The Python API (ui/api/): named endpoints over the tabs' handlers, declared once for both pages.
        api.build(ctx, shown)
    # An invited rater's page: the rating tab alone, in every mode (ui/web.py sends invite links here).
    rater_ctx = AppContext(model=ctx.model, organizer_password=ctx.organizer_password)
    rater_ctx.extras["store"] = store_for(ctx)
    with demo.route("Rate", web.RATE_PAGE, show_in_navbar=False):
        gr.Navbar(visible="hidden", main_page_name=False)  # type: ignore[arg-type]
        gr.Markdown(HEADER)
        rate.build(rater_ctx)
        rate_footer.build(rater_ctx)  # how this browser got in (invite link or Hugging Face), how to leave
        _add_loaders(demo, rater_ctx)
    i18n.translate(demo)  # English and Chinese, by the browser's language (ui/i18n.py)
    return demo


def _add_loaders(demo: gr.Blocks, ctx: AppContext) -> None:
    for fn, inputs, outputs in ctx.extras.get("loaders", []):
        demo.load(fn, inputs, outputs, api_visibility="private")


def status_update_rate() -> str | float:
    """Seconds between queue-position messages (ARENA_STATUS_UPDATE_RATE, default 2; arena/settings.py).

    Gradio's "auto" sends every waiting client a message each time any job ends, which grows with
    the square of the queue: with 50 raters submitting at once, 2 s cut submit p95 from 4.5-4.9 s
    to 2.7-3.2 s (benchmarks/bench_load.py, interleaved runs)."""
    return current_settings().status_update_rate


def main(argv: list[str] | None = None) -> None:
    log_privacy.install()  # before the log's handler takes sys.stderr
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:  # flags over environment, read once; every module asks arena.settings.current() from here on
        config = settings.load(sys.argv[1:] if argv is None else argv, os.environ)
    except settings.SettingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    settings.install(config)
    status_rate = status_update_rate()
    app_mode()
    try:
        clients.trusted_proxies()
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    settings.keep_forwarded_headers_from_uvicorn()  # clients are read by arena/access/clients.py only
    from arena import engines  # late, as the tabs' modules: importing the engines reads the settings installed above

    # Before the model's load, which takes a while: the port, and a store that cannot take a rating.
    fail_on(launch.port_problem(config.host, config.port))
    fail_on(store_problem())
    try:
        lm = llm.get_default_model()  # fail fast on a bad model setting, before the port opens
        engines.prepare(lm)  # and on an engine that cannot run it (llama.cpp: its library, the model's GGUF)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2)
    logging.getLogger("arena").info("model ready: %s", lm.describe())
    from arena.studies import quick

    ctx = AppContext()
    with one_app.deferred():  # the config and the server app come once, from launch (ui/one_app.py)
        demo = build_app(ctx)
    quick.expire(store_for(ctx))  # quick studies past their time, left by an earlier run
    join_gate.gate.install(lambda code: invites.valid(store_for(ctx), code))
    try:
        serve(demo, config, status_rate)
    except Exception as exc:  # whatever stopped the start, in one line: the traceback helps no operator
        demo.close()
        fail_on(launch.start_failure(exc, config.host, config.port))
    logging.getLogger("arena").info("serving on http://%s:%s", config.host, config.port)  # tests wait for this line
    # The model's work runs here, on the thread that loaded it, not on Gradio's worker threads: on a
    # CPU a second OpenMP team halves decoding speed (arena/model/compute.py).
    try:
        compute.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        demo.close()


def store_problem() -> str | None:
    """Why the ratings store cannot serve (cannot be opened or reached, read-only, full), or None."""
    try:
        store = get_store()
    except UserError as exc:
        return str(exc)
    reason = store.write_problem()
    return f"the ratings database {store.url} {reason}" if reason else None


def fail_on(problem: str | None) -> None:
    """Exit code 2 with `problem` as the one line, if there is one."""
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        raise SystemExit(2)


def app_kwargs() -> dict:
    """What the app adds to Gradio's FastAPI app: its own routes and, first, the gate on every route."""
    from ui.present import routes as present_routes  # /present?study=N, the stakeholder page

    return {
        "routes": present_routes() + web.routes(),
        # The gate first: a flood is refused before anything else reads it (ui/join_gate.py; which
        # door each route is: ui/doors.py).
        "middleware": [Middleware(join_gate.JoinGateMiddleware), Middleware(web.ArenaMiddleware)],
    }


def serve(demo: gr.Blocks, config: settings.Settings, status_rate: str | float) -> None:
    """Open the port and start serving in the background; Gradio's hasty start checks replaced (ui/launch.py)."""
    from ui import a11y  # contrast fixes for Gradio's default theme (axe-core, tests/e2e/test_a11y_e2e.py)

    # api_open=False: a queued handler runs through the queue only (its per-client pending cap and
    # concurrency hold); `/gradio_api/run` keeps the page's queue=False handlers (ui/doors.py).
    with one_app.deferred():
        queued = demo.queue(
            default_concurrency_limit=4, status_update_rate=status_rate, max_size=QUEUE_MAX_SIZE, api_open=False
        )
    quiet_queue.quiet(queued._queue)  # an idle app does not poll its queue 1,000 times a second
    # run_history=False: Gradio would otherwise keep every call's inputs (invite codes, scores) in
    # the browser's localStorage and offer them at /gradio_api/runs.
    with launch.patient_checks():
        queued.launch(
            server_name=config.host,
            server_port=config.port,
            run_history=False,
            state_session_capacity=join_gate.SESSION_CAPACITY,
            max_file_size=MAX_FILE_SIZE,
            css=assets.shipped_css(assets.CSS, a11y.CSS),
            head=assets.HEAD,
            i18n=i18n.I18N,
            app_kwargs=app_kwargs(),
            prevent_thread_lock=True,
        )


if __name__ == "__main__":
    main()
