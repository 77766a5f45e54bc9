"""The in-process engine (transformers on this machine): see engine.py; the GPU functions are in tasks.py."""

from .engine import LocalEngine

__all__ = ["LocalEngine"]
