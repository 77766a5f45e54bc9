"""`python -m arena.export`, the documented command line for exports and imports, kept at its address.

The code is arena/files/export.py; this module only forwards the command line to it.
"""

from __future__ import annotations

if __name__ == "__main__":
    import runpy

    runpy.run_module("arena.files.export", run_name="__main__", alter_sys=True)
