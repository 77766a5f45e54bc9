"""The vLLM engine: translate.py (a method's plan as sampling fields, pure), client.py (the HTTP
client, timed on this side), slots.py (a study's outputs, all in flight), engine.py (the Engine)."""

from .client import EngineRequest, ServerInfo, VllmClient
from .engine import VllmEngine
from .translate import plan_on_engine, translate

__all__ = ["EngineRequest", "ServerInfo", "VllmClient", "VllmEngine", "plan_on_engine", "translate"]
