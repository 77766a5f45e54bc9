"""Errors whose message is meant for the person using the app or the CLI.

Defined at the bottom layer (decoders imports nothing from the project), re-exported by
`arena.errors` for everything above."""


class UserError(ValueError):
    """Bad input: the UI shows the message, the CLI prints it and exits with code 2."""
