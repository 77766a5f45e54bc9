"""Gradio's server app made once per start, by `launch()`, instead of at every step before it.

Gradio builds a whole FastAPI app (about 250 routes, and the page's config, which walks all 4,000
blocks) at the end of every `with Blocks()` and `with demo.route()` block and again in `queue()`,
then throws each away: `launch()` makes the config and the app that serve anew. For this app that is
four configs and three apps nobody uses, about 0.9 CPU seconds of each start (app.py).

Within `deferred()`, those steps skip the config and the app; `launch()`, outside it, makes both
as it always does, from the finished Blocks. Only for a Blocks that is launched afterwards: one
built inside and never launched has no `app` and no `config` (tests that read them build outside).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from gradio import blocks, routes


def _skipped(*_args: Any, **_kwargs: Any) -> None:
    return None


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Within: closing a Blocks or a page, and `queue()`, make no config and no server app."""
    create_app = routes.App.__dict__["create_app"]
    get_config_file = blocks.Blocks.get_config_file
    routes.App.create_app = staticmethod(_skipped)  # type: ignore[method-assign,assignment]
    blocks.Blocks.get_config_file = _skipped  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        routes.App.create_app = create_app  # type: ignore[method-assign]
        blocks.Blocks.get_config_file = get_config_file  # type: ignore[method-assign]
