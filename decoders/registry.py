"""The decoder registry. A decoder module calls `register` at import; `decoders/methods/` is
imported as a whole by `decoders/__init__.py`, so adding a decoder is adding one file there."""

from __future__ import annotations

from common.messages import english

from .base import Decoder, InvalidSettings

_REGISTRY: dict[str, Decoder] = {}

# The article's three, in the article's order; everything else follows in registration order.
DEFAULT_METHODS: tuple[str, ...] = ("BS-4", "TS-Temp", "TS-Tilted")


def register(decoder: Decoder) -> Decoder:
    if decoder.name in _REGISTRY:
        raise ValueError(f"decoder {decoder.name!r} is registered twice")
    _REGISTRY[decoder.name] = decoder
    return decoder


def get(name: str) -> Decoder:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise InvalidSettings(f"unknown method {name!r}; known methods: {', '.join(names())}") from None


def names() -> list[str]:
    core = [n for n in DEFAULT_METHODS if n in _REGISTRY]
    return core + [n for n in _REGISTRY if n not in core]


def all_decoders() -> list[Decoder]:
    return [_REGISTRY[n] for n in names()]


def parse_methods(spec: str | list[str] | tuple[str, ...] | None) -> list[str]:
    """'BS-4,TS-Temp' or a list -> validated names, order kept, duplicates refused."""
    if spec is None:
        return list(DEFAULT_METHODS)
    if not isinstance(spec, (str, list, tuple)) or not all(isinstance(s, str) for s in spec):
        raise InvalidSettings(f"methods must be names, e.g. 'BS-4,TS-Temp', got {spec!r}")
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [s.strip() for s in spec]
    items = [s for s in items if s]
    if not items:
        raise InvalidSettings(english("choose_one_method"))
    if len(set(items)) != len(items):
        raise InvalidSettings(f"a method is listed twice: {', '.join(items)}")
    for name in items:
        get(name)
    return items
