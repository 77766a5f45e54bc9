"""Organizer section "Raters who sign in with Hugging Face": which accounts may take a seat in the
chosen study without an invite code (arena/access/accounts.py). The seats they take are listed with the
invited raters ("Enrolled raters", the account's `hf:NAME` or the chosen pseudonym), revoked the same
way, and exported and counted as invited raters are.

Included from ui/organizer/__init__.py's build: `build(ctx, password, study)`; every handler checks the
organizer password on the server (ui/organizer/auth.py), as the rest of the tab does.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from arena.access import accounts
from arena.inputs.numbers import study_id as parse_study_id
from arena.store import Store
from common import messages
from common.messages import english

from .. import AppContext, hf_signin, store_for
from .auth import guarded


def sign_in_state(lang: str = "en") -> str:
    """Whether raters can sign in on this deployment at all, in one line for the organizer, in `lang`."""
    if hf_signin.enabled():
        key = "organizer_accounts_on_mock" if not hf_signin.on_space() else "organizer_accounts_on"
        return messages.text(key, lang)
    return messages.text("organizer_accounts_off", lang)


def shown(store: Store, selected: Any) -> str:
    """The chosen study's list as the organizer wrote it (empty: codes only)."""
    if selected in (None, ""):
        return ""
    access = accounts.access_of(store, parse_study_id(selected))
    return "" if access is None else access.text()


def save(store: Store, selected: Any, text: Any, lang: str = "en") -> tuple[str, str]:
    """Let the listed accounts into the chosen study: the list as kept, and the status line (in `lang`)."""
    sid = parse_study_id(selected)
    access = accounts.set_access(store, sid, text)
    if access is None:
        return "", messages.text("accounts_saved_none", lang, id=sid)
    if access.anyone:
        line = messages.text("accounts_saved_anyone", lang, id=sid)
    else:
        line = messages.text("accounts_saved", lang, id=sid, n=len(access.names))
    return access.text(), line if hf_signin.enabled() else f"{line} {sign_in_state(lang)}"


def build(ctx: AppContext, password: Any, study: Any) -> None:
    store = store_for(ctx)
    with gr.Accordion(english("organizer_accounts_title"), open=False):
        gr.Markdown(english("organizer_accounts_help"))
        gr.Markdown(sign_in_state())
        with gr.Row():
            names = gr.Textbox(label=english("organizer_accounts_label"), lines=3, scale=3)
            save_btn = gr.Button(english("organizer_accounts_save"), scale=1)
        line = gr.Markdown("")
    private: dict[str, Any] = dict(api_visibility="private")
    save_btn.click(guarded(ctx, save, store), [password, study, names], [names, line], **private)
    study.change(guarded(ctx, shown, store), [password, study], [names], **private)
