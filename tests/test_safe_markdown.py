"""Responses are rendered as Markdown with nothing of HTML let through: no script, no event handler,
no image loaded from anywhere, no javascript: (or data:) link. Checked on the HTML the rating form
sends, with an HTML parser rather than string matching."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from ui.safe import markdown_html, response_html

ATTACKS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    "![tracker](https://tracker.example/pixel.png?who=rater)",
    "[ref]: javascript:alert(1)\n\n[click][ref]",
    "![ref-image][img]\n\n[img]: https://tracker.example/p.png",
    "<https://tracker.example/autolink>",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[spaced](  JaVaScRiPt:alert(1))",
    '<a href="javascript:alert(1)">a</a> <iframe src=x></iframe> <svg onload=alert(1)>',
    "`<script>in code</script>`\n\n    <img src=x onerror=alert(1)>",
]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags_of(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


@pytest.mark.parametrize("attack", ATTACKS)
def test_no_markup_from_an_output_survives(attack):
    html = response_html("A", f"Answer. {attack} Done.")
    for tag, attrs in tags_of(html):
        assert tag not in ("script", "img", "iframe", "svg", "object", "embed", "style", "link", "meta"), html
        assert not any(name.startswith("on") for name in attrs), html
        if tag == "a":
            assert attrs["href"].startswith(("http://", "https://", "mailto:")), html
            assert attrs["target"] == "_blank" and "noopener" in attrs["rel"], html  # a click never leaves the form
        assert all("javascript" not in (value or "").lower() for value in attrs.values()), html


def test_escaped_text_stays_readable_and_markdown_is_rendered():
    html = markdown_html("**bold** and <script>alert(1)</script> and ![cat](https://x.example/c.png)")
    assert "<strong>bold</strong>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as the characters, not dropped
    assert "[image: cat]" in html and "x.example" not in html
    assert '<a href="https://example.org"' in markdown_html("[ok](https://example.org)")


def test_the_response_is_a_region_named_after_its_label():
    html = response_html("B", "text")
    [section, heading, *_] = tags_of(html)
    assert section == ("section", {"class": "rate-response", "role": "region", "aria-label": "Response B"})
    assert heading[0] == "h3" and ">Response B</h3>" in html
    assert response_html("C", "") == ""  # an unused slot shows nothing
