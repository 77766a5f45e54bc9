"""The one error type for people: its message is meant for whoever uses the app or a command line.

The UI shows the message as one inline line, a CLI prints `error: MESSAGE` and exits with code 2.
Subclasses say where it comes from when a caller needs to tell (`InvalidSettings` of a decoder,
`SettingError` of a setting, `StoreUnavailable` of the database); everything else raises UserError."""


class UserError(ValueError):
    """Bad input, or a refusal a person can act on: the message says what to do."""
