"""The rating page's footer (`/rate`): how this browser got into the study, and how to leave it.

A rater who opened an invite link holds the code in a cookie (ui/web.py) until the browser closes, and
"Leave this study on this browser" forgets it. A rater signed in with Hugging Face (ui/hf_signin.py)
holds no code: the account finds its seat on any browser, so forgetting a cookie would change nothing.
For them the footer says which account they are signed in as and that signing out (the sign-in button,
"Sign out (NAME)") is how to leave; the page's "Rating as …" line names the seat. A page opened with
neither (a code typed in the box) has no footer: nothing is kept to leave.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from arena.access import clients, sessions
from common import messages

from .. import AppContext, hf_signin, web
from ..i18n import language_of_request
from ..safe import md_text


def on_load(request: gr.Request) -> tuple[str, Any]:
    """(the footer's line, the Leave button) for the browser that sent `request`: the one that opened
    the study (the invite cookie wins over an account, as it does in ui/rate/handlers.on_load)."""
    lang = language_of_request(request)
    if clients.cookie(request, sessions.RATER_COOKIE):
        return messages.text("rate_page_signout", lang), gr.update(visible=True)
    account = hf_signin.account_of(request)
    if account is not None:
        return messages.text("rate_page_signed_in", lang, user=md_text(account.username)), gr.update(visible=False)
    return "", gr.update(visible=False)


def build(ctx: AppContext) -> None:
    """The footer row, filled when the page loads (a loader in `ctx.extras`, as the rating tab's)."""
    with gr.Row(elem_id="rate-signout"):
        note = gr.Markdown("", elem_id="rate-signout-note")
        # A same-origin POST (ui/web.py): no link on another site can sign a rater out.
        leave = gr.Button("Leave this study on this browser", size="sm", variant="secondary", visible=False)
        leave.click(None, js=web.SIGNOUT_JS)
    ctx.extras.setdefault("loaders", []).append((on_load, [], [note, leave]))
