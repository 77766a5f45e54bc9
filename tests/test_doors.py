"""Issue 44: every door of the app under the one gate, decided from the app's route table.

In process: the real app's route table (both modes) has a decided door for every route; a route
nobody decided is closed; the gate, in front of a small app with Gradio's route templates, refuses
each kind of door once its client's bucket is spent, closes the closed ones before anything runs,
and holds a client's pages to its slots. The same gate against the running app, flooded door by
door, is tests/test_flood_doors_live.py.
"""

from __future__ import annotations

import asyncio
import math

import gradio as gr
import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

import app
from arena.settings import Settings, override
from ui import doors, join_gate
from ui.slots import Slots

API = doors.API


@pytest.fixture(scope="module", params=["full", "rating"])
def route_table(request):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARENA_MODE", request.param)
        mp.setenv("ARENA_ENGINE", "dummy")
        demo = app.build_app()
        demo.queue(api_open=False)
        served = gr.routes.App.create_app(demo, app_kwargs=app.app_kwargs())
        yield demo, served, doors.table_of(served)
        demo.close()


def test_every_route_of_the_app_has_a_decided_door(route_table):
    demo, served, table = route_table
    assert table.unknown == [], "routes no door is decided for (ui/doors.py POLICY)"
    assert len(table.routes) >= 60  # Gradio's routes, the pages and the app's own were all read
    expect = {
        ("POST", f"{API}/queue/join"): doors.Kind.HANDLER,
        ("POST", f"{API}/run/results_studies"): doors.Kind.HANDLER,
        ("POST", f"{API}/call/results_studies"): doors.Kind.HANDLER,
        ("POST", f"{API}/call/v2/results_studies"): doors.Kind.HANDLER,
        ("GET", f"{API}/call/results_studies/abc"): doors.Kind.STREAM,
        ("GET", f"{API}/call/v2/results_studies/abc"): doors.Kind.STREAM,
        # the Python API's endpoints (ui/api/) are handler doors as the page's are
        ("POST", f"{API}/call/start_rating"): doors.Kind.HANDLER,
        ("POST", f"{API}/call/v2/submit_scores"): doors.Kind.HANDLER,
        ("POST", f"{API}/run/next_item"): doors.Kind.HANDLER,
        ("GET", f"{API}/call/v2/submit_scores/abc"): doors.Kind.STREAM,
        ("GET", f"{API}/queue/data"): doors.Kind.STREAM,
        ("GET", f"{API}/heartbeat/abc"): doors.Kind.STREAM,
        ("GET", "/"): doors.Kind.PAGE,
        ("HEAD", "/"): doors.Kind.PAGE,
        ("GET", "/rate"): doors.Kind.PAGE,
        ("GET", "/config"): doors.Kind.PAGE,
        ("GET", f"{API}/info"): doors.Kind.PAGE,
        ("GET", "/present"): doors.Kind.PAGE,
        ("POST", f"{API}/upload"): doors.Kind.LIGHT,
        ("GET", f"{API}/file=/etc/passwd"): doors.Kind.LIGHT,
        ("POST", f"{API}/cancel"): doors.Kind.LIGHT,
        ("POST", "/arena/invite"): doors.Kind.LIGHT,  # no route: ui/web.py answers it
        ("GET", "/assets/index.js"): doors.Kind.FILE,
        ("POST", f"{API}/api/results_studies"): doors.Kind.CLOSED,
        ("POST", f"{API}/component_server"): doors.Kind.CLOSED,
        ("GET", f"{API}/proxy=https://example.org"): doors.Kind.CLOSED,
        ("GET", "/openapi.json"): doors.Kind.CLOSED,
        ("GET", f"{API}/runs"): doors.Kind.CLOSED,
    }
    got = {request: table.door(request[1], request[0])[0].kind for request in expect}
    assert got == expect
    # component_server is closed because nothing of the app needs it: no component has server functions.
    assert not [b for b in demo.blocks.values() if getattr(b, "server_fns", None)]


def test_the_present_routes_are_the_ones_the_policy_names():
    from evaluation.report import PRESENT_PATH
    from ui import present

    assert (doors.PRESENT_PATH, doors.PLOTLY_PATH) == (PRESENT_PATH, present.PLOTLY_PATH)


def test_a_route_nobody_decided_is_closed():
    async def ok(request):
        return PlainTextResponse("ran")

    made = Starlette(routes=[Route(f"{API}/brand-new/{{x}}", ok, methods=["POST"]), Route("/config", ok)])
    table = doors.DoorTable(list(doors.flat_routes(made.routes)))
    assert table.unknown == [f"{API}/brand-new/{{x}}"]
    assert table.door(f"{API}/brand-new/1", "POST")[0] is doors.CLOSED
    assert table.door("/config", "GET")[0] is doors.PAGE
    assert table.door("/no/such/page", "GET")[0] is doors.UNROUTED


# ---- the gate in front of a small app with Gradio's templates ----------------------------------------

ran: list[str] = []
release = asyncio.Event()


async def handler(request):
    ran.append(request.url.path)
    await request.body()
    return JSONResponse({"event_id": f"e{len(ran)}"})


async def page(request):
    ran.append(request.url.path)
    if request.query_params.get("hold"):
        await release.wait()
    return PlainTextResponse("page")


async def plain(request):
    ran.append(request.url.path)
    return PlainTextResponse("ok")


def small_app() -> Starlette:
    return Starlette(
        routes=[
            Route(f"{API}/queue/join", handler, methods=["POST"]),
            Route(f"{API}/call/{{api_name}}", handler, methods=["POST"]),
            Route(f"{API}/call/v2/{{api_name}}", handler, methods=["POST"]),
            Route(f"{API}/api/{{api_name}}", handler, methods=["POST"]),
            Route("/config", page),
            Route(f"{API}/heartbeat/{{session_hash}}", plain),
            Route(f"{API}/cancel", plain, methods=["POST"]),
            Route("/assets/{path}", plain),
        ],
        middleware=[Middleware(join_gate.JoinGateMiddleware)],
    )


@pytest.fixture
def still_clock():
    """The gate's clock stands still: a bucket holds exactly what the settings say, nothing refills."""
    gate = join_gate.gate
    before = gate.clock
    gate.reset()
    gate.clock = lambda: 1000.0
    ran.clear()
    yield
    gate.clock = before
    gate.reset()


async def flood(client: httpx.AsyncClient, method: str, path: str, address: str, n: int) -> list[int]:
    headers = {"X-Forwarded-For": address}
    body = {"data": [], "fn_index": 0, "session_hash": None}
    statuses = []
    for _ in range(n):
        r = await client.request(method, path, headers=headers, json=body if method == "POST" else None)
        statuses.append(r.status_code)
    return statuses


@pytest.mark.parametrize(
    "method,path,kind",
    [
        ("POST", f"{API}/queue/join", doors.Kind.HANDLER),
        ("POST", f"{API}/call/results_studies", doors.Kind.HANDLER),
        ("POST", f"{API}/call/v2/submit_scores", doors.Kind.HANDLER),  # the Python API (ui/api/)
        ("GET", "/config", doors.Kind.PAGE),
        ("GET", f"{API}/heartbeat/abc", doors.Kind.STREAM),
        ("POST", f"{API}/cancel", doors.Kind.LIGHT),
        ("GET", "/assets/a.js", doors.Kind.FILE),
    ],
)
def test_attack_each_kind_of_door_is_refused_once_its_bucket_is_spent(still_clock, method, path, kind):
    limits = Settings()
    burst = limits.joins_per_second * join_gate.BURST_S
    # A handler request with no session id is a new session each: the session bucket runs out first.
    allowed = limits.sessions_per_minute / 3 if kind is doors.Kind.HANDLER else burst / doors.COST[kind]

    async def go() -> list[int]:
        transport = httpx.ASGITransport(app=small_app(), client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            with override(trusted_proxies="127.0.0.1"):
                return await flood(client, method, path, "203.0.113.9", math.ceil(allowed) + 50)

    statuses = asyncio.run(go())
    served = statuses.count(200)
    assert abs(served - allowed) <= 1 and statuses.count(429) == len(statuses) - served, (served, allowed)
    assert len(ran) == served  # a refused request reached nothing behind the gate


def test_attack_a_closed_door_runs_nothing_and_costs_the_bucket_nothing(still_clock):
    async def go() -> tuple[list[int], int]:
        transport = httpx.ASGITransport(app=small_app(), client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            closed = await flood(client, "POST", f"{API}/api/results_studies", "127.0.0.1", 200)
            after = await client.get("/config")
            return closed, after.status_code

    closed, after = asyncio.run(go())
    assert closed == [404] * 200 and after == 200
    assert ran == ["/config"]


def test_a_clients_pages_are_made_two_at_a_time_a_few_wait_and_the_rest_are_refused(still_clock):
    size = Settings().pages_per_client

    async def go() -> tuple[list[int], list[int]]:
        release.clear()
        transport = httpx.ASGITransport(app=small_app(), client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            many = [asyncio.create_task(client.get("/config?hold=1")) for _ in range(size + join_gate.PAGE_LINE + 5)]
            while len(ran) < size or join_gate.gate.pages.waiting("address:127.0.0.1") < join_gate.PAGE_LINE:
                await asyncio.sleep(0.01)
            in_progress = [len(ran), join_gate.gate.pages.running("address:127.0.0.1")]
            other = await client.get("/config", headers={"Cookie": "x=1"})  # the same client: refused now
            release.set()
            return [r.status_code for r in await asyncio.gather(*many)] + [other.status_code], in_progress

    statuses, in_progress = asyncio.run(go())
    assert in_progress == [size, size]
    assert statuses.count(200) == size + join_gate.PAGE_LINE
    assert statuses.count(429) == 5 + 1
    assert join_gate.gate.pages.running("address:127.0.0.1") == 0


def test_slots_hand_a_freed_slot_to_the_first_in_line_and_forget_one_that_left():
    async def go() -> list[str]:
        slots, order = Slots(), []
        assert await slots.enter("k", 1) and not await slots.enter("k", 1, line=0)

        async def wait(name: str) -> None:
            assert await slots.enter("k", 1, line=2)
            order.append(name)
            slots.leave("k")

        first, gone = asyncio.create_task(wait("first")), asyncio.create_task(wait("gone"))
        await asyncio.sleep(0)
        assert slots.waiting("k") == 2 and not await slots.enter("k", 1, line=2)
        gone.cancel()
        await asyncio.gather(gone, return_exceptions=True)
        assert slots.waiting("k") == 1
        slots.leave("k")
        await first
        assert slots.running("k") == 0 and slots.waiting("k") == 0
        return order

    assert asyncio.run(go()) == ["first"]


def test_slots_rest_before_handing_a_slot_to_the_line_and_a_lone_request_never_rests():
    async def go() -> tuple[float, bool, int]:
        loop, slots = asyncio.get_running_loop(), Slots()
        assert await slots.enter("lone", 1)
        slots.leave("lone", rest=60.0)  # nobody waits: free at once, no rest
        free_at_once = slots.running("lone") == 0 and await slots.enter("lone", 1)

        assert await slots.enter("k", 1)
        waiter = asyncio.create_task(slots.enter("k", 1, line=1))
        while not slots.waiting("k"):
            await asyncio.sleep(0)
        left = loop.time()
        slots.leave("k", rest=0.2)
        await asyncio.sleep(0)
        assert not waiter.done() and slots.running("k") == 1  # the slot stays taken while it rests
        assert await waiter
        return loop.time() - left, free_at_once, slots.running("k")

    rested, free_at_once, running = asyncio.run(go())
    assert free_at_once and running == 1
    assert rested >= 0.2 - 0.01, rested  # the loop may fire a timer a clock tick early


MAKING_S = 0.05
made: list[tuple[str, float, float]] = []


async def slow_page(request):
    """A page that takes a while to make (Gradio's copy of the config, 100-300 ms on this machine)."""
    began = asyncio.get_running_loop().time()
    await asyncio.sleep(MAKING_S)
    made.append((request.headers.get("x-forwarded-for", ""), began, asyncio.get_running_loop().time()))
    return PlainTextResponse("page")


def test_attack_a_page_flood_gets_a_quarter_of_the_time_and_a_lone_visitor_no_wait(still_clock):
    """A client that asks for pages faster than they are made has its line served with a rest of
    PAGE_REST times the last page's making between them: however many it sends at once, its pages
    are in the making at most 1 / (1 + PAGE_REST) of the time. Another visitor's page, sent in the
    middle of that flood, is made at once, and a visitor's pages one after another never rest."""
    app_ = Starlette(routes=[Route("/config", slow_page)], middleware=[Middleware(join_gate.JoinGateMiddleware)])
    n = Settings().pages_per_client + join_gate.PAGE_LINE
    made.clear()

    async def go() -> tuple[list[int], float]:
        transport = httpx.ASGITransport(app=app_, client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://arena") as client:
            with override(trusted_proxies="127.0.0.1"):
                flood_ = [
                    asyncio.create_task(client.get("/config", headers={"X-Forwarded-For": "203.0.113.9"}))
                    for _ in range(n)
                ]
                while len(made) < 2:
                    await asyncio.sleep(0.01)
                asked = asyncio.get_running_loop().time()
                lone = [await client.get("/config", headers={"X-Forwarded-For": "198.51.100.7"}) for _ in range(3)]
                lone_s = asyncio.get_running_loop().time() - asked
                statuses = [r.status_code for r in await asyncio.gather(*flood_)] + [r.status_code for r in lone]
                return statuses, lone_s

    statuses, lone_s = asyncio.run(go())
    assert statuses == [200] * (n + 3)
    flooder = [(b, e) for who, b, e in made if who == "203.0.113.9"]
    assert len(flooder) == n
    for (began, ended), (after, _) in zip(flooder, flooder[1:], strict=False):
        assert after - ended >= join_gate.PAGE_REST * (ended - began) * 0.99, (began, ended, after)
    busy = sum(e - b for b, e in flooder)
    assert busy / (flooder[-1][1] - flooder[0][0]) <= 1 / (1 + join_gate.PAGE_REST) + 0.05
    # Three pages one after another, each made at once: no wait behind the flooder's line, and no
    # rest between them (two rests alone would be 2 * PAGE_REST * MAKING_S).
    assert lone_s < (3 + join_gate.PAGE_REST) * MAKING_S, lone_s
