"""No invite code reaches the app's log (ui/log_privacy.py), even where Gradio prints the values a
malformed call sent. The live tests read the whole log of every app they start for the same thing."""

from __future__ import annotations

import io
import logging

from arena.access import invites
from ui import log_privacy


def test_every_code_shape_is_redacted_and_nothing_else():
    codes = [invites.new_code() for _ in range(200)]
    line = "Received inputs:\n    [" + ", ".join(repr(c) for c in codes) + ", None, 'The whole item']"
    out = log_privacy.redact(line)
    assert not [c for c in codes if c in out]
    assert out.count(log_privacy.REDACTED) == len(codes)
    # what the log does say stays: addresses, session hashes (11), session tokens (43), names, numbers
    kept = "from 203.0.113.7 session 1a2b3c4d5e6 token " + "A" * 43 + " rater alice item 12"
    assert log_privacy.redact(kept) == kept


def test_the_stream_redacts_what_logging_and_tracebacks_write():
    sink = io.StringIO()
    stream = log_privacy.CodeRedactingStream(sink)
    code = invites.new_code()
    logger = logging.getLogger("test_log_privacy")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        try:
            raise ValueError(f"An event handler didn't receive enough input values. Received inputs: [{code!r}]")
        except ValueError:
            logger.exception("while handling %s", code)
    finally:
        logger.removeHandler(handler)
    assert code not in sink.getvalue() and "Received inputs" in sink.getvalue()
    assert "while handling [code]" in sink.getvalue()
