"""Text that people type, cleaned one way everywhere: prompts, names, comments, notes, and the
folded form that compares prompts and study names however they are disguised.

Unicode categories: Cc are control characters (NUL is refused by PostgreSQL; they are invisible and
confuse tokenizers), Cs lone surrogates (a forged API call can send them; no database can encode
them), Cf format characters (zero-width spaces, bidi overrides such as U+202E). NFKC turns full-width
and compatibility forms into their plain letters ("ａｌｉｃｅ" is "alice").
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

_INVISIBLE = ("Cc", "Cs")
_INVISIBLE_OR_FORMAT = ("Cc", "Cf", "Cs")
# Markdown's punctuation, and ":" and "@": GFM (Gradio's renderer) makes a link of a bare http://,
# www. or e-mail address in text, and an escaped ":" or "@" keeps the text from reading as one.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>:@])")


def printable(text: str, *, keep: str = "", nfkc: bool = False, drop_format: bool = False) -> str:
    """`text` without control and lone-surrogate characters, except those in `keep`.

    Args:
        keep: characters kept although they are controls (layout: "\\t\\n").
        nfkc: NFKC-normalise first (names, which people read and compare).
        drop_format: drop format characters too (zero-width, bidi overrides).

    >>> printable("a\\x00b\\tc", keep="\\t")
    'ab\\tc'
    >>> printable("ａｌｉｃｅ\\u202e", nfkc=True, drop_format=True)
    'alice'
    """
    if nfkc:
        text = unicodedata.normalize("NFKC", text)
    dropped = _INVISIBLE_OR_FORMAT if drop_format else _INVISIBLE
    return "".join(ch for ch in text if ch in keep or unicodedata.category(ch) not in dropped)


def folded(text: str, look_alikes: Mapping[int, Any] | None = None) -> str:
    """`text` as compared, not as shown: NFKC, case folded, and look-alike letters mapped if given.

    >>> folded("ＢＳ-4")
    'bs-4'
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.translate(look_alikes) if look_alikes is not None else text


# Showing a name. Every name that comes from a file or a person (study, method, question, rater,
# prompt id, model, guideline text) is escaped for the place it is shown, by one of these three: a
# Markdown component (Gradio renders it as HTML and lets links and images through its sanitizer), an
# HTML page (/present), or a plotly chart (its titles, legends, ticks and hover labels read a subset
# of HTML: <a href>, <b>, <br>...). Text that is only ever set as text (a table cell of gr.Dataframe,
# a dropdown choice, a CSV cell) needs none of them.


def markdown_literal(text: object) -> str:
    """`text` as literal characters in Markdown or HTML: HTML-escaped, Markdown punctuation escaped
    (a name is user input and must not become markup in someone's browser)."""
    return _MARKDOWN.sub(r"\\\1", html.escape(str(text), quote=False))


def html_literal(text: object) -> str:
    """`text` as literal characters in an HTML page, inside an element or a quoted attribute."""
    return html.escape(str(text), quote=True)


def plot_literal(text: object) -> str:
    """`text` as literal characters in a plotly label: plotly turns its own few tags (<a href>, <b>,
    <br>, <span style>...) into markup and shows entities (&lt;) as their characters."""
    return html.escape(str(text), quote=False)


# Spreadsheets run a cell that starts with one of these as a formula (OWASP's CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(text: str) -> str:
    """A CSV cell that a spreadsheet will not run as a formula (OWASP): one leading apostrophe before
    text that starts with = + - @ tab or CR, and before text that starts with an apostrophe itself,
    so that `unescape_cell` takes exactly one away and gets the text back."""
    if text and (text.startswith(FORMULA_START) or text.startswith("'")):
        return "'" + text
    return text


def unescape_cell(text: str) -> str:
    return text[1:] if text.startswith("'") else text
