"""Every name that comes from a file or a person is shown as text wherever it is shown (issue 44).

A long-format ratings file whose every name field carries markup (a link, a remote image, an image
with an event handler, bold, a script) is imported with `python -m arena.export --import-ratings`'s
code and published. Then every view that shows its names is read the way a browser would: the
Markdown of Results and the Organizer rendered as Gradio renders it (raw HTML allowed, then
sanitised), /present's HTML parsed, the charts' labels read as plotly reads them, and the Results CSV
read as a spreadsheet would. No link, image, script or bold from a name may appear, and the names
must still be there, character for character.
"""

from __future__ import annotations

import csv
import html
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from markdown_it import MarkdownIt

from arena.files.long_import import import_long_file
from arena.inputs.text import FORMULA_START
from evaluation.report import compute_view
from tests.support.seeding import publish
from ui import present
from ui import results as results_tab
from ui.organizer import stats as organizer_stats
from ui.organizer.handlers import overview

LINK, IMAGE, HANDLER, BOLD, SCRIPT = (
    "[x](http://evil)",
    "![i](http://evil/x.png)",
    "<img src=x onerror=alert(1)>",
    "**b**",
    "<script>alert(1)</script>",
)
PAYLOADS = (LINK, IMAGE, HANDLER, BOLD, SCRIPT)
# every name field of the long format; a dimension holds no comma or quote and 60 characters at most
METHODS = (f"=BS {LINK} {BOLD}", f"TS {IMAGE} {SCRIPT}", f"TT {HANDLER} {BOLD}")
DIMENSIONS = (f"quality {LINK} {HANDLER}", f"fluency {BOLD} {IMAGE} <script>s</script>")
RATERS = (f"ann {HANDLER} {LINK}", f"bob {BOLD} {IMAGE}", f"cy {SCRIPT}", f"flat {LINK} {BOLD}")
ITEM = f"item {LINK} {BOLD} {HANDLER} "
STUDY = f"Survey {HANDLER} {LINK} {BOLD} {IMAGE}"
EVERY_NAME = (*METHODS, *DIMENSIONS, *RATERS, STUDY)


def write_file(path: Path) -> Path:
    """12 items x 3 methods x 4 raters on two 1-10 questions: the methods far apart (the takeaway names
    a leader), the last rater straight-lining (the organizer's flags name them)."""
    rng = np.random.default_rng(4)
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["study_id", "study_name", "item_id", "output_id", "rater", "method", "dimension", "score"])
        for i in range(12):
            for m, method in enumerate(METHODS):
                for r, rater in enumerate(RATERS):
                    for d, dim in enumerate(DIMENSIONS):
                        score = 7 - d if r == 3 else int(np.clip(2 + 3 * m + rng.integers(0, 2), 1, 10))
                        out.writerow([f"s {SCRIPT}", f"name {HANDLER}", f"{ITEM}{i}", f"o {LINK} {i}:{m}", rater,
                                      method, dim, score])  # fmt: skip
    return path


@pytest.fixture
def study(store, tmp_path) -> int:
    [made] = import_long_file(store, write_file(tmp_path / "survey.csv"), STUDY, {"": (1, 10)})
    publish(store, int(made["study_id"]))
    return int(made["study_id"])


class Page(HTMLParser):
    """The tags of an HTML fragment and its visible text (script and style contents are not text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._hidden -= tag in ("script", "style") and self._hidden > 0

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)


def read(fragment: str) -> Page:
    page = Page()
    page.feed(fragment)
    return page


# Gradio's Markdown lets raw HTML through (then strips scripts and handlers, but keeps images and links)
GRADIO_MD = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def markup_problems(shown: str, where: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """What a name made of the page: tags it opened and attributes pointing at evil, or bold "b"."""
    page = read(shown)
    problems = []
    for tag, attrs in page.tags:
        if tag in ("img", "script", "iframe", "svg") or (tag == "a" and tag not in allowed):
            if not (tag == "a" and (attrs.get("href") or "").startswith("/present")):
                problems.append(f"{where}: <{tag} {attrs}>")
        if any(
            k.startswith("on") or (k in ("href", "src", "srcdoc") and "evil" in (v or "")) for k, v in attrs.items()
        ):
            problems.append(f"{where}: <{tag} {attrs}>")
    if re.search(r"<(strong|em)>b</\1>", shown):
        problems.append(f"{where}: bold from a name")
    return problems


def markdown_problems(markdown: str, where: str) -> list[str]:
    problems = markup_problems(GRADIO_MD.render(str(markdown or "")), where)
    # GFM, which Gradio's renderer follows, also links a bare address in text (markdown-it's linkify
    # is not installed here): no name may leave one in the source
    bare = re.findall(r"(?:https?|ftp)://\S*|www\.\S*", re.sub(r"\]\(/present\?study=\d+\)", "", markdown))
    return problems + [f"{where}: a bare address GFM links: {b}" for b in bare]


def visible_markdown(markdown: str) -> str:
    return "".join(read(GRADIO_MD.render(str(markdown or ""))).text).strip()


def test_results_show_every_imported_name_as_text(store, study):
    view = results_tab.on_show(store, lambda: None, study, None, None, False)
    problems = []
    for field in ("headline", "verdict", "story"):
        problems += markdown_problems(getattr(view, field), f"Results {field}")
    assert not problems, "\n".join(problems)
    headline = visible_markdown(view.headline)
    assert STUDY in headline and all(m in headline for m in METHODS), headline
    story = visible_markdown(view.story)
    assert METHODS[2] in story and DIMENSIONS[0] in story and DIMENSIONS[1] in story, story
    assert any(m in visible_markdown(view.verdict) for m in METHODS)


def test_charts_label_every_name_as_text(store, study):
    view = compute_view(store, study, lm=None)
    for figure in (view["scores_figure"], view["latency_figure"]):
        labels = [*plotly_strings(figure.to_plotly_json())]
        for text in labels:
            # plotly reads <a href>, <b>, <br>... in a label as markup; an entity is shown as its character
            assert not re.search(r"<(?!/?extra>)", text), text
        shown = " ".join(html.unescape(t) for t in labels)
        assert all(m in shown for m in METHODS) and all(d in shown for d in DIMENSIONS)


def plotly_strings(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for key, v in node.items() if key != "template" for s in plotly_strings(v)]
    if isinstance(node, (list, tuple)):
        return [s for v in node for s in plotly_strings(v)]
    return []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_stakeholder_page_shows_every_name_as_text(store, study, lang):
    status, page = present.render(store, study, lang)
    assert status == 200
    # the page's own scripts: the charts' data (checked below) and plotly.js drawing them, at the end
    body = re.sub(r'<script type="application/json".*?</script>', "", page.split("<body>", 1)[1])
    problems = markup_problems(body.split('<script src="/present/plotly.js">')[0], f"/present ({lang})", ("a",))
    assert not [p for p in problems if "lang=" not in p], "\n".join(problems)
    text = "".join(read(page).text)
    assert STUDY in text and all(m in text for m in METHODS) and all(d in text for d in DIMENSIONS)
    charts = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page)
    assert charts and not any("<" in c or "</script" in c.lower() for c in charts)


def test_the_organizer_shows_every_name_as_text(store, study):
    _, _, words = organizer_stats.diagnostics(store, study)
    problems = markdown_problems(words, "Organizer diagnostics")
    shown = overview(store, study)
    problems += markdown_problems(shown.status, "Organizer status")
    assert not problems, "\n".join(problems)
    assert RATERS[3] in visible_markdown(words) and "straight-lining" in visible_markdown(words)
    # tables and dropdowns are set as text by Gradio (no Markdown, no HTML): the names as they are
    table = shown.studies
    assert STUDY in set(table["name"]) and all(m in table["methods"].iloc[0] for m in METHODS)


def test_the_results_csv_runs_no_formula(store, study):
    view = compute_view(store, study, lm=None)
    path = results_tab.write_csv(view["summary"], study)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    cells = [c for row in rows for c in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)], cells
    assert f"'{METHODS[0]}" in cells  # kept, with the apostrophe that keeps it a text


@pytest.mark.parametrize("name", EVERY_NAME)
def test_each_payload_is_literal_in_markdown(name):
    from ui.safe import md_text

    assert visible_markdown(md_text(name)) == name and not markdown_problems(md_text(name), name)
