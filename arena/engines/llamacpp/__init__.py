"""The llama.cpp engine: a model's GGUF file run by llama.cpp (`llama-cpp-python`) in this process.

translate.py (a method's plan as hooks and llama.cpp samplers), runtime.py (the library and one
model's context), sampling.py and generate.py (one token at a time), beams.py (beam search over
llama.cpp sequences), record.py (the token view), run.py (one timed method), engine.py (the
`Engine`). `llama_cpp` is imported on first use only.
"""

from .engine import LlamaCppEngine

__all__ = ["LlamaCppEngine"]
