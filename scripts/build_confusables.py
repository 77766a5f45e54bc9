"""Write arena/data/confusables.json from Unicode's confusables.txt (UTS #39), run by hand.

    python scripts/build_confusables.py PATH/TO/confusables.txt

The reserved-prompt check (arena/studies/reserved.py) folds look-alike characters to their prototype
the way UTS #39 computes a skeleton. It needs the single-code-point lines of the table only (a source
of several code points never occurs inside the NFD form it is applied to). The file keeps Unicode's
version line and notice; Unicode's terms of use allow redistributing its data files with it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "arena" / "data" / "confusables.json"


def parse(text: str) -> tuple[dict[str, str], str]:
    mapping: dict[str, str] = {}
    version = ""
    for line in text.splitlines():
        line = line.lstrip("\ufeff")
        if line.startswith("# Version:"):
            version = line.split(":", 1)[1].strip()
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target, *_ = [part.strip() for part in data.split(";")]
        codes = source.split()
        if len(codes) == 1:
            mapping[chr(int(codes[0], 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return mapping, version


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python scripts/build_confusables.py PATH/TO/confusables.txt")
    mapping, version = parse(Path(argv[0]).read_text(encoding="utf-8"))
    payload = {
        "source": f"Unicode confusables.txt (UTS #39), version {version}",
        "notice": "© Unicode, Inc. Unicode data files; see https://www.unicode.org/terms_of_use.html",
        "prototypes": dict(sorted(mapping.items())),
    }
    OUT.write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(mapping)} single-code-point entries of version {version} -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
