"""The floor every layer stands on: types shared by all of them, in modules that import nothing from
the project and nothing heavy (no torch, no transformers, no pandas), so that the store, the
statistics and every command line that does not generate stay light (tests/test_light_imports.py)."""
