"""How many requests of one client the app serves at once, per kind of door (ui/join_gate.py).

A token bucket bounds how many requests a client sends; it does not bound how many are served at
the same time, and for the app's pages that is what costs memory: each builds its own copy of the
app's config, so sixteen built at once left the process 270 MB larger, where the same sixteen one
after another left it as it was. `Slots` keeps, per client, at most `size` in progress; up to
`line` more wait their turn, first come first served (a room of visitors behind one address gets
its pages a little later, not an error); the rest are refused at once. A slot given back with a
`rest` goes to the next in line only after that many seconds: ui/join_gate.py rests a client's
page slot three times as long as its last page took to make, so a client that always has a line
(a flood) has its pages in the making a quarter of the time at most; a lone page never rests.

The middleware runs on the server's event loop, so no lock is needed: nothing here yields between
reading and changing the counts.
"""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    def __init__(self) -> None:
        self._running: dict[str, int] = {}
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._resting: set[asyncio.TimerHandle] = set()

    def running(self, key: str) -> int:
        return self._running.get(key, 0)

    def waiting(self, key: str) -> int:
        return len(self._waiting.get(key, ()))

    async def enter(self, key: str, size: int, line: int = 0) -> bool:
        """Take one of `key`'s slots, waiting in a line of at most `line`; False: refused."""
        if self.running(key) < size and not self.waiting(key):
            self._running[key] = self.running(key) + 1
            return True
        queue = self._waiting.setdefault(key, deque())
        if len(queue) >= line:
            if not queue:
                del self._waiting[key]
            return False
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(turn)
        try:
            await turn  # `leave` hands its slot over: the count stays as it is
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.leave(key)  # handed a slot as the client went away: pass it on
            elif turn in queue:
                queue.remove(turn)
                if not queue and self._waiting.get(key) is queue:
                    del self._waiting[key]
            raise
        return True

    def leave(self, key: str, rest: float = 0.0) -> None:
        """Give a slot back: to the first in `key`'s line (after `rest` seconds, the slot held
        meanwhile), or free. A lone request never rests: only a client with a line waits."""
        if rest > 0 and self.waiting(key):

            def rested() -> None:
                self._resting.discard(handle)
                self._hand_over(key)

            handle = asyncio.get_running_loop().call_later(rest, rested)
            self._resting.add(handle)
            return
        self._hand_over(key)

    def _hand_over(self, key: str) -> None:
        queue = self._waiting.get(key)
        while queue:
            turn = queue.popleft()
            if not queue:
                del self._waiting[key]
            if not turn.done():
                turn.set_result(None)
                return
        left = self.running(key) - 1
        if left > 0:
            self._running[key] = left
        else:
            self._running.pop(key, None)

    def reset(self) -> None:
        for handle in self._resting:
            handle.cancel()
        self._resting.clear()
        for queue in self._waiting.values():
            for turn in queue:
                turn.cancel()
        self._running.clear()
        self._waiting.clear()
