"""ui/i18n.py: every text a rater or a Compare audience reads has a Chinese entry, and the entries are
safe for Gradio's ICU message format. The browser side is tests/e2e/test_i18n_e2e.py."""

from __future__ import annotations

import re

import gradio as gr
import pytest

import app
from arena.inputs import language
from ui import i18n
from ui.compare import form as cform
from ui.compare import timing as ctiming

# Text on those pages that is not prose: names of methods and settings, numbers, letters, the model line.
NOT_PROSE = re.compile(r"^(?:[A-Z]|\d+|max_new_tokens|)$")


def _tab_of(demo: gr.Blocks) -> dict[int, str]:
    where: dict[int, str] = {}

    def walk(block, tab):
        tab = block.id if isinstance(block, gr.Tab) else tab
        where[block._id] = tab
        for child in getattr(block, "children", None) or []:
            walk(child, tab)

    walk(demo, "main")
    return where


@pytest.fixture(scope="module")
def config():
    demo = app.build_app()
    return demo, demo.get_config_file()


def texts_on(config, pages: set[str]) -> list[tuple[str, str, str]]:
    """(page, attribute, text) of every component on those pages (the rate page is "rate")."""
    demo, cfg = config
    where = _tab_of(demo)
    rate = set(cfg["page"]["rate"]["components"])
    found = []
    for c in cfg["components"]:
        page = "rate" if c["id"] in rate else where.get(c["id"], "?")
        if page not in pages or c["type"] == "api":  # gr.api's values ("1st", …): a schema, never drawn
            continue
        props = c["props"]
        attrs = ["label", "info", "placeholder"] + (["value"] if c["type"] in ("markdown", "button") else [])
        found += [(page, a, props[a]) for a in attrs if isinstance(props.get(a), str) and props[a].strip()]
        if c["type"] in ("radio", "dropdown") and page in ("rating", "rate"):
            found += [(page, "choice", str(ch[0])) for ch in props.get("choices") or []]
    return found


# Compare's settings accordions (one per decoder, with the parameters' own names) stay English: they
# are for people tuning decoders; so are the model line, the banner and the per-method boxes.
COMPARE_MAIN = {
    "Prompt",
    "Methods",
    "Article presets",
    "Run",
    "Stop",
    "Send these to the Rate tab",
    "Settings",
    "Timing",
    "Raw continuation (no chat template)",
    "The article's scenarios (zh and en)",
    "Ask a question, or paste a text to continue",
    "Record why each token was chosen",
    "Seed (torch.manual_seed before each method; empty = random)",
    "Latency and throughput",
}


def test_every_text_on_the_rating_pages_is_marked_for_chinese(config):
    found = texts_on(config, {"rating", "rate", "main"})
    assert len(found) > 50
    # Labels and texts are marked; choices stay plain (Gradio looks a choice up in the table itself).
    marked = [text for _, attr, text in found if attr != "choice" and text.startswith(i18n.MARK)]
    assert all(i18n.key_of(i18n.plain(text)) for text in marked)
    missing = [
        (page, attr, text)
        for page, attr, text in found
        if not text.startswith(i18n.MARK) and i18n.key_of(text) is None and not NOT_PROSE.match(text)
    ]
    assert missing == [], missing  # the pager is HTML (letters only); a guess question names a method: not listed


@pytest.mark.parametrize("tab", ["results", "organizer", "trace"])
def test_every_static_text_on_results_organizer_and_trace_is_marked_for_chinese(config, tab):
    # issue 24: labels, Markdown intros, buttons and placeholders; a parameter's own name stays English.
    found = texts_on(config, {tab})
    assert len(found) > (5 if tab == "trace" else 15)
    missing = [
        (attr, text)
        for _, attr, text in found
        if not text.startswith(i18n.MARK) and i18n.key_of(text) is None and not NOT_PROSE.match(text)
    ]
    assert missing == []
    assert all(i18n.key_of(i18n.plain(text)) for _, _, text in found if text.startswith(i18n.MARK))


def test_compares_main_labels_are_marked(config):
    found = {i18n.plain(text): text for _, _, text in texts_on(config, {"compare"})}
    for english in COMPARE_MAIN:
        assert english in found, english
        assert found[english].startswith(i18n.MARK), english


def test_tab_names_and_fixed_status_lines_have_entries():
    for label, _ in app.TABS:
        assert label in i18n.ZH

    for line in (ctiming.BUSY_LABEL, cform.RESERVED_PICKED, "Starting…", "**Stopped** before it started."):
        assert line in i18n.ZH
    assert language.MODEL_WARNING in i18n.ZH


def test_entries_are_plain_text_for_icu_and_really_chinese():
    for english, chinese in i18n.ZH.items():
        assert not set("{}") & set(chinese + english), english
        assert language.chinese_share(chinese) > 0.5 or not language.chinese_share(english), english


def test_no_method_is_named_in_the_table_that_every_page_gets():
    # Gradio sends the whole table with every page, the invited rater's /rate included
    # (tests/test_blind_routes_live.py route 8 checks it on a live app).
    import json

    import decoders

    table = json.dumps(i18n.ZH, ensure_ascii=False)
    assert not [m for m in decoders.names() if m in table]


def test_marks_round_trip_and_unknown_text_is_left_alone():
    marked = i18n.t("Run")
    assert marked.startswith(i18n.MARK) and i18n.plain(marked) == "Run"
    assert i18n.t("a study's own guidelines") == "a study's own guidelines"
    assert i18n.plain("plain") == "plain"


def test_compare_shows_the_language_warning_marked_for_translation():
    from types import SimpleNamespace

    smol = SimpleNamespace(alias="smollm2-135m", name="SmolLM2-135M-Instruct (embedded GGUF Q4_1, de-quantised)")
    gemma = SimpleNamespace(alias="gemma-3-270m", name="Gemma 3 270M, base (embedded GGUF Q4_K_M, de-quantised)")
    line = cform.language_note(smol, "光合作用是什么？")
    assert line.startswith("⚠ SmolLM2-135M-Instruct ") and i18n.MARK in line
    assert i18n.plain(line[line.index(i18n.MARK) :]) == language.MODEL_WARNING
    assert cform.language_note(gemma, "光合作用是什么？") == ""
    assert cform.language_note(smol, "What is photosynthesis?") == ""
    assert cform.language_note(smol, None) == ""


def test_a_picked_chinese_scenario_gets_more_tokens_within_the_compare_cap(monkeypatch):
    from types import SimpleNamespace

    from arena.inputs.prompts import SCENARIOS
    from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS

    zh = next(s for s in SCENARIOS if s.language == "zh")
    en = next(s for s in SCENARIOS if s.language == "en")
    lm = SimpleNamespace(tokenizer=None)  # no tokenizer: twice the default for Chinese
    monkeypatch.setattr(cform, "compare_token_cap", lambda: 2048)
    assert cform.scenario_max_new(lm, en, ["BS-4", "TS-Temp", "TS-Tilted"]) == DEFAULT_MAX_NEW_TOKENS
    assert cform.scenario_max_new(lm, zh, ["BS-4", "TS-Temp", "TS-Tilted"]) == 2 * DEFAULT_MAX_NEW_TOKENS
    monkeypatch.setattr(cform, "compare_token_cap", lambda: 300)
    assert cform.scenario_max_new(lm, zh, ["BS-4", "TS-Temp", "TS-Tilted"]) == 100  # 3 x 100 <= 300
    assert cform.scenario_max_new(lm, zh, []) == 256


def test_a_busy_run_button_is_read_in_either_language():

    for seen in (ctiming.BUSY_LABEL, i18n.ZH[ctiming.BUSY_LABEL], i18n.t(ctiming.BUSY_LABEL)):
        assert i18n.reads(seen, ctiming.BUSY_LABEL)
    assert not i18n.reads("Run", ctiming.BUSY_LABEL) and not i18n.reads(None, ctiming.BUSY_LABEL)


def test_a_chinese_example_on_the_english_only_model_keeps_the_english_default(monkeypatch):
    """Issue 35: on SmolLM2 the Chinese example set 352 new tokens (over an hour for three methods on a CPU)
    for an answer the warning says will be off-topic; on Gemma it still gets its measured Chinese length."""
    from types import SimpleNamespace

    from arena.inputs.prompts import SCENARIOS
    from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS

    zh = next(s for s in SCENARIOS if s.language == "zh")
    monkeypatch.setattr(cform, "compare_token_cap", lambda: 2048)
    smol = SimpleNamespace(name="SmolLM2-135M-Instruct", alias="smollm2-135m", tokenizer=None)
    gemma = SimpleNamespace(name="gemma-3-270m-it", alias="gemma-3-270m", tokenizer=None)
    assert cform.scenario_max_new(smol, zh, ["BS-4", "TS-Temp", "TS-Tilted"]) == DEFAULT_MAX_NEW_TOKENS
    assert cform.scenario_max_new(gemma, zh, ["BS-4", "TS-Temp", "TS-Tilted"]) == 2 * DEFAULT_MAX_NEW_TOKENS
