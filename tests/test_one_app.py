"""A start makes Gradio's page config and server app once, at launch (ui/one_app.py): what a page is
served does not change, only the throw-away copies Gradio made at every `with` block go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gradio as gr
from gradio import blocks, routes

from ui import one_app

ROOT = Path(__file__).resolve().parents[1]


def two_pages() -> gr.Blocks:
    with gr.Blocks() as demo:
        text = gr.Textbox(label="a")
        gr.Button("go").click(lambda x: x, text, text)
        demo.load(lambda: "hi", None, text)
    with demo.route("Two", "/two"):
        gr.Markdown("two")
    return demo.queue()


def config_in_a_fresh_process(deferred: bool) -> str:
    """The page config as JSON, from a process of its own: block ids count up across a process."""
    code = f"""
import json, contextlib
from tests.test_one_app import two_pages
from ui import one_app
with one_app.deferred() if {deferred} else contextlib.nullcontext():
    demo = two_pages()
config = demo.get_config_file()
config.pop("app_id")
print(json.dumps(config, sort_keys=True, default=str))
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_inside_no_config_or_app_is_made_and_after_it_the_same_config_is(monkeypatch):
    made = []
    create_app, get_config_file = routes.App.create_app, blocks.Blocks.get_config_file
    monkeypatch.setattr(routes.App, "create_app", lambda *a, **k: made.append("app") or create_app(*a, **k))
    monkeypatch.setattr(blocks.Blocks, "get_config_file", lambda self: made.append("config") or get_config_file(self))
    two_pages()
    assert "app" in made and "config" in made  # what deferred() saves: Gradio makes both at every `with`
    made.clear()
    with one_app.deferred():
        deferred = two_pages()
    assert made == []
    assert deferred.get_config_file()["components"]  # made when asked, as launch() asks
    assert routes.App.create_app is not one_app._skipped  # restored on the way out


def test_the_config_made_after_a_deferred_build_is_the_usual_one():
    assert config_in_a_fresh_process(True) == config_in_a_fresh_process(False)
