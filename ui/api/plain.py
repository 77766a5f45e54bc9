"""Lines of the page as plain text for API answers: the page's lines are Markdown (emphasis, and names
escaped by `ui.safe.md_text`), an API caller reads text."""

from __future__ import annotations

import html
import re

ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~&=\"'])")


def plain_text(markdown: object) -> str:
    r"""`markdown` without its emphasis and escapes.

    >>> plain_text("**Item 1 of 3** · study \\*pilot\\*")
    'Item 1 of 3 · study *pilot*'
    """
    return html.unescape(ESCAPED.sub(r"\1", str(markdown or "").replace("**", ""))).strip()
