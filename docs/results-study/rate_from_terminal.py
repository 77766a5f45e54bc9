"""Blind rating from a terminal, through the same server-side functions the Rate tab calls.

python rate.py show RATER            # the next item you have not rated: prompt + responses A/B/C
python rate.py submit RATER ITEM 'A=4,3,5' 'B=...' 'C=...'   # coherence,informativeness,naturalness (1-5)
"""

import sys

sys.path.insert(0, "/work/study/code")
from arena.rating import blind
from arena.store import Store

store = Store("sqlite:////work/study/arena.db")
SID = store.list_studies()[0]["id"]
cmd, rater = sys.argv[1], sys.argv[2]
if cmd == "show":
    view, msg = blind.open_item(store, rater, SID)
    if view is None:
        print(msg)
        raise SystemExit
    print(f"ITEM {view.item}  ({view.index} of {view.total}; you have fully rated {view.rated_items})")
    print("PROMPT:\n" + view.prompt + "\n")
    for r in view.responses:
        print(f"===== RESPONSE {r.label} =====\n{r.text}\n")
elif cmd == "submit":
    item = sys.argv[3]
    scores, comments = {}, {}
    for arg in sys.argv[4:]:
        label, rest = arg.split("=", 1)
        parts = rest.split(",", 3)
        scores[label] = dict(zip(("coherence", "informativeness", "naturalness"), (int(x) for x in parts[:3])))
        if len(parts) > 3:
            comments[label] = parts[3]
    blind.submit(store, rater, item, scores, comments)
    print("saved")
