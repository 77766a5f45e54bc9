"""The stakeholder page: `/present?study=N`, one published study on a plain HTML page with no tabs,
controls or Gradio footer. A takeaway sentence and rater agreement in words (`evaluation.story`),
a compact table with plain column names and ↑/↓, the charts (1–5 axes, latency in ms) and how the
timing was measured and on what.

Served as a plain Starlette route added to Gradio's FastAPI app (`routes()` goes into
`launch(app_kwargs={"routes": ...})`), so it works in every ARENA_MODE. Any id that is not a
published study, existing or not, gets the same neutral page (status 404). Every user string is
HTML-escaped; charts are plotly JSON inside <script type="application/json"> (with `<`, `>`, `&`
escaped) drawn by plotly.js served from the installed plotly package (no CDN: works offline).
"""

from __future__ import annotations

import html
import json
import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly
from starlette.concurrency import run_in_threadpool
from starlette.responses import FileResponse, HTMLResponse
from starlette.routing import Route

from arena.inputs.numbers import study_id as parse_study_id
from arena.inputs.text import html_literal
from arena.model.llm import loaded_default
from arena.model.model_names import model_in_words
from arena.store import Store, get_store
from common import messages
from common.errors import UserError
from evaluation import results as res
from evaluation import story
from evaluation.pairwise_view import pairwise_view
from evaluation.report import PRESENT_PATH, compute_view, model_named

from .i18n import language_of

PATH = PRESENT_PATH
PLOTLY_PATH = "/present/plotly.js"
NOT_FOUND = messages.english("present_not_found")

# The page in Chinese: chosen from the request (`?lang=zh|en`, else Accept-Language), rendered here.
# Method names, numbers and a study's own name stay as they are.
# The table's column names (evaluation.results.COLUMNS) and the leaderboard's, in Chinese.
# The timing columns name where their figures come from (the study's generation run), so a latency
# measured under load in a batch is not read as the method's speed.
STUDY_RUN_TIMING = {
    messages.english("column_latency_ms"): messages.english("column_latency_ms_study_run"),
    messages.english("column_tokens_s"): messages.english("column_tokens_s_study_run"),
}
COLUMNS_ZH = res.COLUMNS_ZH


def _w(key: str, lang: str) -> str:
    return messages.text(key, lang)


def _e(text: Any) -> str:
    return html_literal(text)


def _json_for_script(obj: Any) -> str:
    # Inside <script type="application/json">: no "</script>" or HTML-significant characters survive.
    return json.dumps(obj).replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def timing_note(outputs: pd.DataFrame, lm: Any = None, lang: str = "en") -> str:
    """How the timing was measured and on what (plain text): model, dtype and batch size from the
    stored outputs; the device from the model serving this page when it is the same model."""
    if outputs.empty:
        return "还没有输出。" if lang == "zh" else "No outputs yet."
    settings = [s if isinstance(s, dict) else _loads(s) for s in outputs["settings"]]
    dtypes = Counter(str(s.get("dtype")) for s in settings if s.get("dtype"))
    batches = Counter(int(s["batch_size"]) for s in settings if str(s.get("batch_size", "")).isdigit())
    raw_models = sorted({str(m) for m in outputs["model"].dropna()})
    models = [model_in_words(m) for m in raw_models]
    timed = int(pd.to_numeric(outputs["latency_ms"], errors="coerce").notna().sum())
    if lang == "zh":
        return _timing_zh(
            models, dtypes, batches, timed, len(outputs), lm if getattr(lm, "name", None) in raw_models else None
        )
    named = (", ".join(models) or "not recorded") if model_named() else "not named on a rating deployment"
    parts = [f"Model: {named}", f"dtype: {', '.join(dtypes) or 'not recorded'}"]
    if batches:
        parts.append("generated in batches of " + ", ".join(str(b) for b in sorted(batches)))
    text = (
        "; ".join(parts) + f". Latency is the wall-clock time from the request to the last token of one output, "
        f"in milliseconds, measured on the server that generated it ({timed} of {len(outputs)} outputs timed); "
        "tokens/s is new tokens divided by that time. Timing depends on the hardware and on what else ran at the "
        "same time, so compare methods within this study only."
    )
    if lm is not None and getattr(lm, "name", None) in raw_models and model_named():
        text += f" This server runs it on {lm.device.type.upper()} in {lm.dtype_name}."
    return text


def _timing_zh(models: list[str], dtypes: Counter, batches: Counter, timed: int, total: int, lm: Any) -> str:
    named = ("、".join(models) or "未记录") if model_named() else "评分部署上不公开"
    parts = [f"模型：{named}", f"数据类型：{'、'.join(dtypes) or '未记录'}"]
    if batches:
        parts.append("批大小 " + "、".join(str(b) for b in sorted(batches)))
    text = (
        "；".join(parts) + f"。延迟是单条输出从请求到最后一个 token 的墙钟时间（毫秒），在生成它的服务器上测得"
        f"（{total} 条输出中有 {timed} 条计时）；token/秒 是新 token 数除以这段时间。计时取决于硬件和同时运行的"
        "其他任务，所以只能在本研究内比较各方法。"
    )
    if lm is not None and model_named():
        text += f"本服务器以 {lm.dtype_name} 在 {lm.device.type.upper()} 上运行该模型。"
    return text


def _loads(s: Any) -> dict:
    try:
        v = json.loads(s) if isinstance(s, str) else {}
        return v if isinstance(v, dict) else {}
    except ValueError:
        return {}


def study_view(store: Store, study_id: Any, lang: str = "en") -> dict[str, Any]:
    """What the page shows, as data (tests call this), in `lang` (en or zh): raises UserError(NOT_FOUND)
    unless published."""
    try:
        sid = parse_study_id(study_id)
        study = store.get_study(sid)
        if study is not None and study.design == "pairwise":
            view = {**pairwise_view(store, sid, lang=lang), "kind": "pairwise"}
            if lang == "zh":
                view["table"] = view["table"].rename(columns=COLUMNS_ZH)
            return view
        view = compute_view(store, study_id, public=True, lang=lang)
    except UserError:
        raise UserError(NOT_FOUND) from None
    r = view["results"]
    study = store.get_study(int(study_id))
    if study is None:  # deleted between the two reads
        raise UserError(NOT_FOUND)
    outputs = store.outputs_frame(int(study_id))
    table = (
        res.display_table(r.summary, r.rubric).drop(columns=[res.COLUMNS["ppl"], res.COLUMNS["mauve"]], errors="ignore")
        if len(r.summary)
        else pd.DataFrame()
    ).rename(columns=STUDY_RUN_TIMING)
    default_scale = r.rubric.one_scale == (1, 5)  # "on 1–5" only where every question is on 1-5
    return {
        "name": study.name,
        "study_id": int(study_id),
        "takeaway": story.takeaway(r.pairwise, r.n_items, r.n_ratings, r.n_raters, lang=lang, rubric=r.rubric),
        "agreement": story.agreement_words(r.agreement, lang=lang),
        "table": res.table_in(table, r.rubric, lang),
        "caption": "present_per_method_caption" if default_scale else "present_per_method_caption_rubric",
        "figures": [f for f in (view["scores_figure"], view["latency_figure"]) if f is not None],
        "timing": messages.text("present_timing_imported", lang, file=study.imported_from)
        if study.imported_from
        else timing_note(outputs, _loaded_model(), lang),
        "methods": list(r.summary["method"]) if len(r.summary) else [],
        "sizes": (r.n_items, r.n_ratings, r.n_raters),
        "blinding": view.get("blinding") or [],
        "exclusion": view.get("exclusion") or [],
        "sensitivity": view.get("sensitivity"),
        "imported_from": study.imported_from,
    }


def _loaded_model():
    try:
        return loaded_default()
    except Exception:  # the page never loads a model itself
        return None


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#fff;line-height:1.5}
main{max-width:1180px;margin:0 auto;padding:24px 32px;overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:0 0 4px} .sub{color:#444;margin:0 0 16px}
.takeaway{font-size:1.25rem;font-weight:600;border-left:6px solid #0072B2;padding:8px 16px;background:#f3f7fb;margin:16px 0}
table{border-collapse:collapse;margin:12px 0;font-size:.95rem} th,td{border-bottom:1px solid #ccc;padding:6px 10px;text-align:left}
th{word-break:keep-all;white-space:normal;hyphens:none;vertical-align:bottom} td,th[scope=row]{white-space:nowrap}
.charts{display:flex;flex-wrap:wrap;gap:12px} .chart{flex:1 1 min(520px,100%);min-width:0;min-height:420px;margin:0}
.note{color:#333;font-size:.92rem} footer{display:none} .lang{margin:0;text-align:right;font-size:.9rem}
.table-wrap{max-width:100%;overflow-x:auto}
@media (max-width:640px){main{padding:16px 12px} h1{font-size:1.3rem} .takeaway{font-size:1.08rem;padding:8px 10px}
 table{font-size:.85rem} th,td{padding:4px 6px} .chart{min-height:340px}}
"""


def _table_html(table: pd.DataFrame, lang: str = "en", caption: str = "present_per_method_caption") -> str:
    if table.empty:
        return f"<p>{_w('present_no_numbers_yet', lang)}</p>"
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table.columns)
    body = "".join(
        "<tr>"
        + "".join((f'<th scope="row">{_e(v)}</th>' if i == 0 else f"<td>{_e(v)}</td>") for i, v in enumerate(row))
        + "</tr>"
        for row in table.itertuples(index=False)
    )
    return (
        f'<div class="table-wrap" role="region" aria-label="{_w("per_method", lang)}" tabindex="0"><table>'
        f'<caption class="note">{_w(caption, lang)}'
        f"{_w('present_higher_is_better', lang)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _leaderboard_html(table: pd.DataFrame, lang: str = "en") -> str:
    if table.empty:
        return f"<p>{_w('present_no_votes_yet', lang)}</p>"
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>" for row in table.itertuples(index=False)
    )
    return (
        f'<div class="table-wrap" role="region" aria-label="{_w("present_leaderboard", lang)}" tabindex="0"><table>'
        f'<caption class="note">{_w("present_bradley_terry_note", lang)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def _sub(view: dict[str, Any], lang: str) -> str:
    """The line under the title: the study's id, sizes and methods."""
    n_items, n_ratings, n_raters = view["sizes"]
    methods = _e(", ".join(view["methods"]) or _w("present_none", lang))
    source = view.get("imported_from")
    # an imported study's ratings were collected elsewhere: it says so instead of "double-blind"
    key = (
        "present_sub_imported"
        if source
        else "present_sub_pairwise"
        if view.get("kind") == "pairwise"
        else "present_sub"
    )
    return messages.text(
        key,
        lang,
        id=view["study_id"],
        items=int(n_items),
        ratings=int(n_ratings),
        votes=int(n_ratings),
        raters=int(n_raters),
        methods=methods,
        file=_e(source or ""),
    )


def pairwise_page_body(view: dict[str, Any], lang: str = "en") -> str:
    return (
        f"<h1>{_e(view['name'])}</h1>"
        f'<p class="sub">{_sub(view, lang)}</p>'
        f'<p class="takeaway" id="takeaway">{_e(view["takeaway"])}</p>'
        f"<h2>{_w('present_leaderboard', lang)}</h2>{_leaderboard_html(view['table'], lang)}"
        + "".join(f'<p class="note">{_e(line)}</p>' for line in view["lines"][1:])
        + _blinding_html(view, lang)
    )


def _blinding_html(view: dict[str, Any], lang: str) -> str:
    """The blinding index lines (a study that asked raters which response came from METHOD)."""
    return "".join(
        f'<p class="blinding"><strong>{_w("present_was_the_blind_kept", lang)}</strong> {_e(line)}</p>'
        for line in view.get("blinding", [])
    )


def _exclusion_html(view: dict[str, Any], lang: str = "en") -> str:
    """The raters the rule set at creation excluded, and the primary pairs with and without them."""
    lines = "".join(f'<p class="note exclusion">{_e(line)}</p>' for line in view.get("exclusion", []))
    table = view.get("sensitivity")
    if table is None or not len(table):
        return lines
    head = "".join(f'<th scope="col">{_e(c)}</th>' for c in table.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>" for row in table.itertuples(index=False)
    )
    return (
        lines + f'<div class="table-wrap" role="region" aria-label="{_w("sensitivity_region", lang)}" tabindex="0">'
        f'<table id="sensitivity"><caption class="note">{_w("sensitivity_caption", lang)}'
        f"</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def page_html(view: dict[str, Any] | None, lang: str = "en") -> str:
    """The whole page in `lang` (en or zh); `view` None = the neutral "no published study" page."""
    if view is None:
        title, body = "Decoding Arena", f"<h1>Decoding Arena</h1><p>{_e(_w('present_not_found', lang))}</p>"
        return _document(title, body, charts=False, lang=lang)
    study = view["study_id"]
    if view.get("kind") == "pairwise":
        return _document(
            f"{view['name']} · Decoding Arena", pairwise_page_body(view, lang), charts=False, lang=lang, study=study
        )
    charts = "".join(
        f'<figure class="chart" id="chart-{k}" aria-label="{_e(html.unescape(fig.layout.title.text or _w("chart", lang)))}" role="img"></figure>'
        f'<script type="application/json" id="chart-{k}-data">{_json_for_script(json.loads(fig.to_json()))}</script>'
        for k, fig in enumerate(view["figures"])
    )
    body = (
        f"<h1>{_e(view['name'])}</h1>"
        f'<p class="sub">{_sub(view, lang)}</p>'
        f'<p class="takeaway" id="takeaway">{_e(view["takeaway"])}</p>'
        f'<p id="agreement">{_e(view["agreement"])}</p>'
        + _blinding_html(view, lang)
        + f"<h2>{_w('per_method', lang)}</h2>{_table_html(view['table'], lang, view.get('caption', 'present_per_method_caption'))}"
        f'<p class="note">{_e(_w("present_help", lang))}</p>'
        + _exclusion_html(view, lang)  # after the headline table: who was left out, and what changes without them
        + f'<h2>{_w("present_charts", lang)}</h2><div class="charts">{charts}</div>'
        f'<h2>{_w("present_how_the_timing_was_measured", lang)}</h2><p class="note" id="timing">{_e(view["timing"])}</p>'
    )
    return _document(f"{view['name']} · Decoding Arena", body, charts=bool(view["figures"]), lang=lang, study=study)


def _switch(lang: str, study: Any) -> str:
    """A link to the page in the other language (the same study)."""
    other, name = ("en", "English") if lang == "zh" else ("zh", "中文")
    query = (f"study={study}&" if study is not None else "") + f"lang={other}"
    return f'<p class="lang"><a href="{_e(PATH + "?" + query)}" hreflang="{other}" lang="{other}">{name}</a></p>'


def _document(title: str, body: str, charts: bool, lang: str = "en", study: Any = None) -> str:
    script = ""
    if charts:
        script = (
            f'<script src="{PLOTLY_PATH}"></script><script>'
            "document.querySelectorAll('figure.chart').forEach(function(el){"
            "var fig=JSON.parse(document.getElementById(el.id+'-data').textContent);"
            "var l=fig.layout||{};delete l.width;l.autosize=true;"
            "Plotly.newPlot(el,fig.data,l,{displaylogo:false,responsive:true,displayModeBar:false});});"
            "</script>"
        )
    return (
        f'<!doctype html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
        f"<style>{STYLE}</style></head><body><main>{_switch(lang, study)}{body}</main>{script}</body></html>"
    )


_cache: OrderedDict[tuple, str] = OrderedDict()
_cache_lock = threading.Lock()
_render_lock = threading.Lock()
CACHE_SIZE = 32


def render(store: Store, study_id: Any, lang: str = "en") -> tuple[int, str]:
    """(HTTP status, HTML) for `/present?study=<study_id>` in `lang` (en or zh).

    The page is public and its statistics (bootstrap, mixed model) take seconds, so a rendered page
    is kept, keyed by the study's id, creation time, state and counts (a published study no longer
    changes; a change of state gives a new key, and so does a study made after a deletion, which SQLite
    may give the deleted one's id), and one page is computed at a time."""
    try:
        sid = parse_study_id(study_id)
    except UserError:
        return 404, page_html(None, lang)
    study = store.get_study(sid)
    if study is None or study.state != "published":
        return 404, page_html(None, lang)
    key = (
        str(store.url) if hasattr(store, "url") else id(store),
        sid,
        study.name,
        study.created_at,
        study.state,
        tuple(sorted(store.study_summary(sid).items())),
        len(store.votes(sid)) if study.design == "pairwise" else 0,
        lang,
    )
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return 200, _cache[key]
    with _render_lock:
        with _cache_lock:
            if key in _cache:
                return 200, _cache[key]
        try:
            body = page_html(study_view(store, sid, lang), lang)
        except UserError:
            return 404, page_html(None, lang)
        with _cache_lock:
            _cache[key] = body
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return 200, body


def plotly_js_path() -> str:

    return os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")


def routes(store_factory: Callable[[], Store] = get_store) -> list:
    """Starlette routes for Gradio's FastAPI app: the page and plotly.js."""

    headers = {
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Vary": "Accept-Language",
    }

    async def page(request):
        lang = language_of(request.query_params.get("lang"), request.headers.get("accept-language"))
        status, body = await run_in_threadpool(render, store_factory(), request.query_params.get("study"), lang)
        return HTMLResponse(body, status_code=status, headers={**headers, "Content-Language": lang})

    async def plotly_js(request):
        return FileResponse(
            plotly_js_path(), media_type="application/javascript", headers={"Cache-Control": "public, max-age=86400"}
        )

    return [Route(PATH, page, methods=["GET"]), Route(PLOTLY_PATH, plotly_js, methods=["GET"])]
