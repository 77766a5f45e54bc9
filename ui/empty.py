"""Plots, files and tables that stay hidden until they have a value, on every tab.

An empty gr.Plot, gr.File or gr.Dataframe draws Gradio's "Empty value" placeholder: clutter, and a
bare <div aria-label> that axe-core reports (aria-prohibited-attr) and a screen reader reads out.
Each such component is built with `visible=False` and shown by the update that gives it a value.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd


def is_empty(value: Any) -> bool:
    if isinstance(value, pd.DataFrame):
        return value.empty
    return value is None or (isinstance(value, (list, tuple, str)) and len(value) == 0)


def shown(value: Any) -> Any:
    """The update that sets `value` and shows the component, or hides it while `value` is empty."""
    return gr.update(value=value, visible=not is_empty(value))


def hidden_table(label: str, **kwargs: Any) -> gr.Dataframe:
    """A read-only table, hidden until `shown` gives it rows."""
    return gr.Dataframe(label=label, interactive=False, visible=False, **kwargs)
