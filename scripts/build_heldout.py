"""Build the held-out set `evaluation/data/heldout.jsonl` from Debian packages.

English: the King James Version of the Bible (1611, public domain), from Debian's `bible-kjv-text`
(data) read with `bible-kjv`'s `bible` program. Chinese: the Three Hundred Tang Poems (compiled 1763,
public domain), from Debian's `fortunes-zh` (file `tang300`). Install both with
`apt-get install -y bible-kjv fortunes-zh`, or point the options at extracted .deb folders.

Each fragment is a prompt (the first part) and the human continuation (the rest). Selection is
deterministic: the same packages give the same file.

    python scripts/build_heldout.py                 # ~1000 English + all Chinese poems
    python scripts/build_heldout.py --limit 50 --out /tmp/h.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "evaluation" / "data" / "heldout.jsonl"
PROMPT_WORDS = 24
CONTINUATION_WORDS = (40, 64)  # a passage is closed once its continuation reaches the lower bound
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def kjv_verses(bible_bin: str, data_dir: str | None) -> list[tuple[str, str]]:
    """(chapter, verse text) for every verse, in canonical order."""
    cmd = [bible_bin, "-l100000"] + (["-p", data_dir] if data_dir else []) + ["Gen1:1-Rev22:21"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"error: cannot run {bible_bin!r} ({exc}); install with `apt-get install -y bible-kjv`")
    verses, chapter = [], ""
    for line in out.splitlines():
        m = re.match(r"^\s+(\d+) (.+)$", line)
        if m:
            verses.append((chapter, m.group(2).strip()))
        elif line.strip():
            chapter = line.strip()
    if len(verses) < 30000:
        raise SystemExit(f"error: expected the whole KJV (31,102 verses), got {len(verses)}")
    return verses


def kjv_fragments(verses: list[tuple[str, str]], count: int) -> list[dict]:
    """Passages of consecutive verses inside one chapter, evenly spread over the whole Bible."""
    passages, i = [], 0
    lo, hi = CONTINUATION_WORDS
    while i < len(verses):
        chapter, words, start = verses[i][0], [], i
        while i < len(verses) and verses[i][0] == chapter and len(words) < PROMPT_WORDS + lo:
            words += verses[i][1].split()
            i += 1
        if len(words) >= PROMPT_WORDS + lo:
            passages.append((chapter, start, words[: PROMPT_WORDS + hi]))
    step = len(passages) / count
    picked = [passages[int(k * step)] for k in range(min(count, len(passages)))]
    return [
        {
            "id": f"kjv-{start:05d}",
            "language": "en",
            "source": f"KJV {chapter}",
            "prompt": " ".join(words[:PROMPT_WORDS]),
            "continuation": " " + " ".join(words[PROMPT_WORDS:]),
        }
        for chapter, start, words in picked
    ]


def tang_fragments(path: Path) -> list[dict]:
    """Prompt = title and first line; continuation = the rest of the poem."""
    if not path.is_file():
        raise SystemExit(f"error: {path} not found; install with `apt-get install -y fortunes-zh`")
    items = []
    for n, block in enumerate(ANSI.sub("", path.read_text(encoding="utf-8")).split("\n%\n")):
        lines = [ln.strip() for ln in block.strip().splitlines() if ln.strip()]
        if len(lines) < 5 or not lines[0].startswith("《"):
            continue
        title, body = lines[0], [ln for ln in lines[2:]]  # lines[1] names the author
        if len(body) < 3:
            continue
        items.append(
            {
                "id": f"tang-{n:03d}",
                "language": "zh",
                "source": f"唐诗三百首 {title}",
                "prompt": f"{title}\n{body[0]}\n",
                "continuation": "\n".join(body[1:]),
            }
        )
    return items


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bible-bin", default="bible", help="the `bible` program of Debian's bible-kjv")
    p.add_argument("--bible-data", help="folder holding bible.data (default: the program's own search path)")
    p.add_argument("--tang300", default="/usr/share/games/fortunes/tang300", help="fortunes-zh's tang300 file")
    p.add_argument("--limit", type=int, default=1000, help="number of English fragments (default 1000)")
    p.add_argument("--no-chinese", action="store_true")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    args = p.parse_args(argv)
    if args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    items = kjv_fragments(kjv_verses(args.bible_bin, args.bible_data), args.limit)
    if not args.no_chinese:
        items += tang_fragments(Path(args.tang300))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    langs = {lang: sum(1 for i in items if i["language"] == lang) for lang in ("en", "zh")}
    print(f"wrote {len(items)} fragments ({langs}) to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
