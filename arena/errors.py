"""Errors whose message is meant for the person using the app or the CLI (defined in decoders/errors.py,
the bottom layer, so that decoders never imports from arena)."""

from decoders.errors import UserError

__all__ = ["UserError"]
