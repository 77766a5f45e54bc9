"""Showing user-supplied text (study and rater names, file names) inside Markdown, HTML or a toast.

Gradio renders Markdown and error toasts as HTML, so a name such as `<img src=x onerror=…>` or
`**bold**` must be escaped before it is put into a message.
"""

from __future__ import annotations

import html
import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>])")


def md_text(text: object) -> str:
    """`text` as literal characters in Markdown or HTML: HTML-escaped, Markdown punctuation escaped."""
    return _MARKDOWN.sub(r"\\\1", html.escape(str(text), quote=False))


def toast(message: object) -> str:
    """A message for gr.Error / gr.Warning, which the browser renders as HTML: escaped."""
    return html.escape(str(message), quote=True)
