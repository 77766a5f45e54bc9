"""The Gradio layer: thin tabs over library functions. Each tab module has `build(ctx)`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.model.llm import LoadedModel, get_default_model
from arena.settings import current as current_settings
from arena.store import Store, get_store


@dataclass
class AppContext:
    """What every tab may use. Secrets (the blind mapping, the organizer password) stay here,
    on the server; nothing in it is sent to a browser unless a tab chooses to."""

    model: Callable[[], LoadedModel] = get_default_model
    organizer_password: str = field(default_factory=lambda: current_settings().organizer_password)
    # Filled by app.py while building: the gr.Tabs component, so one tab can switch to another.
    tabs: Any = None
    extras: dict[str, Any] = field(default_factory=dict)


def store_for(ctx: AppContext) -> Store:
    """The app's store: `ctx.extras["store"]` when a caller set one, else the one from the settings
    (DATABASE_URL or ARENA_DB_PATH), opened once and kept in the context."""
    store = ctx.extras.get("store")
    if store is None:
        store = ctx.extras["store"] = get_store()
    return store
