"""Errors whose message is meant for the person using the app or the CLI."""


class UserError(ValueError):
    """Bad input: the UI shows the message, the CLI prints it and exits with code 2."""
