"""No invite code in the app's log, whatever writes it.

The app itself logs client addresses, never codes, but Gradio prints a handler's received values
when a call sends the wrong number of them ("Received inputs: ['<code>', ...]"), and a library's
traceback may quote an argument. The app's stdout and stderr (where its log goes) pass through
`CodeRedactingStream`, which replaces every word shaped like an invite code (arena/access/invites.py: 32
URL-safe base64 characters) by "[code]". A 32-character hex digest is shaped the same and is
redacted too: nothing the log needs is that long.
"""

from __future__ import annotations

import io
import math
import re
import sys
from typing import TextIO

from arena.access import invites

CODE_LENGTH = math.ceil(invites.CODE_BYTES * 4 / 3)
CODE_SHAPED = re.compile(rf"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{{{CODE_LENGTH}}}(?![A-Za-z0-9_-])")
REDACTED = "[code]"


def redact(text: str) -> str:
    """`text` with every invite-code-shaped word replaced.

    >>> redact("Received inputs: ['fP_gypfcLdnzidyWjvdfi3hVt8j-Xq8A', None]")
    "Received inputs: ['[code]', None]"
    """
    return CODE_SHAPED.sub(REDACTED, text)


class CodeRedactingStream(io.TextIOBase):
    """A text stream that writes to `target` with `redact` applied. Python's traceback printer and
    the logging handler write whole lines, so a code is never split across two writes."""

    def __init__(self, target: TextIO) -> None:
        self.target = target

    def write(self, text: str) -> int:
        self.target.write(redact(text))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", "utf-8")

    def __getattr__(self, name: str) -> object:  # e.g. `buffer`, `errors`, `reconfigure`
        return getattr(self.target, name)


def install() -> None:
    """Route the process's stdout and stderr through the redaction (before logging is configured, so
    its handler writes through it too). Calling it twice changes nothing."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, CodeRedactingStream):
            setattr(sys, name, CodeRedactingStream(stream))
