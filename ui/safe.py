"""Showing user-supplied text (study and rater names, file names) inside Markdown, HTML or a toast.

Gradio renders Markdown and error toasts as HTML, so a name such as `<img src=x onerror=…>` or
`**bold**` must be escaped before it is put into a message.
"""

from __future__ import annotations

import html

from markdown_it import MarkdownIt

from arena.inputs.text import markdown_literal


def md_text(text: object) -> str:
    """`text` as literal characters in Markdown or HTML: HTML-escaped, Markdown punctuation escaped."""
    return markdown_literal(text)


def toast(message: object) -> str:
    """A message for gr.Error / gr.Warning, which the browser renders as HTML: escaped."""
    return html.escape(str(message), quote=True)


# A model's output shown as Markdown, safely: markdown-it with raw HTML off (any tag is shown as
# text), links only to http(s) and mailto (a javascript: or data: link stays plain text), opening in
# a new tab so a click never leaves the rating form, and images never loaded (a remote image would
# tell its server who is rating, and when): an image is shown as its alt text.
_RESPONSE_MD = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)
_SAFE_SCHEMES = ("http://", "https://", "mailto:")


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(_SAFE_SCHEMES)


def _image_as_text(self, tokens, idx, options, env) -> str:
    alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
    return f'<span class="md-image">[image: {html.escape(alt or "no description", quote=False)}]</span>'


def _link_open(self, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


_RESPONSE_MD.validateLink = _safe_link  # type: ignore[method-assign]  # markdown-it's documented hook
_RESPONSE_MD.add_render_rule("image", _image_as_text)
_RESPONSE_MD.add_render_rule("link_open", _link_open)


def markdown_html(text: object) -> str:
    """`text` (a model's output) as HTML from Markdown, with no raw HTML, no script, no loaded image
    and no link other than http(s) or mailto."""
    return _RESPONSE_MD.render(str(text or ""))


def response_html(label: str, text: object, name: str | None = None) -> str:
    """One response of the rating form: a region named "Response A" (its accessible name; `name` for
    another language), with the heading and the text rendered by `markdown_html`. Empty text (an unused
    slot) gives ""."""
    if text in (None, ""):
        return ""
    name = html.escape(name or f"Response {label}", quote=True)
    return (
        f'<section class="rate-response" role="region" aria-label="{name}"><h3 class="rate-response-title">'
        f'{name}</h3><div class="rate-response-body">{markdown_html(text)}</div></section>'
    )
