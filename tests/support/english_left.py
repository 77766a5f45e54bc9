"""What is still English on a page shown in Chinese: the Latin-letter words of its text that are neither
a name (a method, a model, a study's own name) nor on a small allow-list that says why each word may
stay. Shared by the unit tests that render a page in Chinese and the browser tests that walk it."""

from __future__ import annotations

import html
import json
import re

import decoders

# Words a Chinese page keeps, each with why: names, notation and units, never a sentence.
ALLOWED: dict[str, str] = {
    "English": "the link to the page in English names that language in itself, for a reader who needs it",
    "Decoding": "the app's name, Decoding Arena",
    "Arena": "the app's name, Decoding Arena",
    "CI": "confidence interval: the statistics' notation, as in the Chinese literature",
    "p": "a p-value, statistics' notation",
    "N": "a sample size, statistics' notation",
    "t": "the t statistic, statistics' notation (a column of the statistics tables)",
    "df": "degrees of freedom, statistics' notation, as in the Chinese literature",
    "SD": "a standard deviation, statistics' notation (an effect in SDs of a single rating)",
    "max-T": "the step-down max-T adjustment's name (逐步 max-T)",
    "Holm": "Holm's adjustment, named after its author",
    "Friedman": "the Friedman test, named after its author",
    "Spearman": "Spearman's rank correlation, named after its author",
    "Satterthwaite": "Satterthwaite's degrees of freedom, named after their author",
    "REML": "restricted maximum likelihood, the mixed model's estimation method: notation",
    "log2": "the base-2 logarithm in the length model's formula: notation",
    "a": "the difference a − b between the pair's two methods: notation",
    "b": "the difference a − b between the pair's two methods: notation",
    "ms": "milliseconds: a unit",
    "token": "the model's unit of text (词元 is rarer among practitioners); Compare keeps it too",
    "Krippendorff": "a statistic named after its author",
    "Zipf": "a law named after its author",
    "Self-BLEU4": "a metric's name",
    "distinct-2": "a metric's name",
    "PPL": "perplexity's abbreviation, a metric's name (the Results tab's help explains it as 困惑度)",
    "MAUVE": "a metric's name",
    "CSV": "a file format's name (the Results tab's download)",
    "PNG": "an image format's name (a chart's download button: 下载图表（PNG）)",
    "Plotly.js": "the chart library's name (its tool bar's logo link)",
    "Elo": "a rating scale named after its author",
    "Bradley": "the Bradley–Terry model, named after its authors",
    "Terry": "the Bradley–Terry model, named after its authors",
    "Bang": "Bang's blinding index, named after its author",
    "A": "a response's letter on the pairwise page (the buttons and keys name it)",
    "B": "a response's letter on the pairwise page (the buttons and keys name it)",
    "A/B": "the two letters together: a pairwise study's votes are A/B votes (/present's line under the title)",
    "C": "a response's letter on the 1-5 page (three responses: A, B, C), a choice of its blind question",
    "Ctrl": "a key's name as printed on the keyboard (the 1-5 page's keys line: Ctrl+Enter submits)",
    "Enter": "a key's name as printed on the keyboard (the 1-5 page's keys line: Ctrl+Enter submits)",
    "Gradio": "the web framework's name in its footer",
    "JSON": "a file format's name (the Organizer's rubric box)",
    "JSONL": "a file format's name (the Organizer's exports and imports)",
    "Markdown": "a text format's name (the guidelines box takes Markdown)",
    "DPO": "direct preference optimisation, the preference pairs' format: a name",
    "UTC": "the time zone of the Organizer's times",
    "Hugging": "Hugging Face, the platform raters sign in with: a name",
    "Face": "Hugging Face, the platform raters sign in with: a name",
    "Space": "a Hugging Face Space, the platform's name for a hosted app",
    "README": "a file's name (a Space's settings live in its README)",
    "bf16": "a number format's name (a model's precision, @bf16)",
    "fp32": "a number format's name (a model's precision, @fp32)",
    "int8": "a number format's name (a model's precision, @int8)",
    "torchao": "a library's name (int8 weights)",
    "max_new_tokens": "a parameter's name, as Compare's slider, the CLI and a study file spell it",
    "csv": "a file extension, as typed (the prompt file: .csv, .jsonl or .txt)",
    "jsonl": "a file extension, as typed",
    "txt": "a file extension, as typed",
    "API": "the footer's link to the app's API",
}
PLOTLY_FIELDS = re.compile(r"%\{[^}]*\}|<extra>.*?</extra>")
# A file's path or name ("docs/statistics.md", "GEMMA_TERMS.html", ".csv"): a name, not a word to translate.
PATH = re.compile(r"^(?:[\w.-]+/)*[\w.-]+\.(?:md|py|html|csv|jsonl|json|txt)$")


def english_words(text: str, names: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The Latin-letter words of `text` that are neither in `names`, a method's name nor allowed; a unit
    right after a number ("135M") is part of the number. Non-breaking hyphens count as hyphens."""
    text = PLOTLY_FIELDS.sub(" ", text.replace("\u2011", "-"))
    kept = set(names) | set(ALLOWED) | set(decoders.names())
    words = re.findall(r"(?<![0-9A-Za-z])[A-Za-z][A-Za-z0-9_./-]*", text)
    return sorted({w for w in words if w.strip(".-/") not in kept and w not in kept and not PATH.match(w)})


def chart_texts(figure: dict) -> list[str]:
    """Every text a plotly figure (its JSON) shows: title, axis and legend titles, trace names, category
    labels, marker texts and what a pointer over a mark shows."""
    layout = figure.get("layout", {})
    texts = []

    def title(node: object) -> None:
        if isinstance(node, dict):
            texts.append(str((node.get("title") or {}).get("text", "")) if isinstance(node.get("title"), dict) else "")
            if isinstance(node.get("title"), str):
                texts.append(node["title"])

    title(layout)
    for key, node in layout.items():
        if key.startswith(("xaxis", "yaxis", "legend")):
            title(node)
    for trace in figure.get("data", []):
        texts.append(str(trace.get("name", "")))
        texts.append(str(trace.get("hovertemplate", "")))
        for key in ("x", "y", "text", "customdata"):
            values = trace.get(key)
            if isinstance(values, list):
                texts += [v for v in values if isinstance(v, str)]
    return texts


def html_texts(page: str) -> str:
    """What a person reads of a server-rendered page: its text, its charts' texts, its aria-labels and
    title attributes (a screen reader reads those), without style and script code."""
    charts = [
        " ".join(chart_texts(json.loads(m.group(1))))
        for m in re.finditer(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S)
    ]
    labels = re.findall(r'(?:aria-label|title)="([^"]*)"', page)
    body = re.sub(r"<style>.*?</style>|<script.*?</script>", " ", page, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return html.unescape(" ".join([body, *labels, *charts]))
