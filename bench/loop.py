"""Loop benchmark: what one model call costs through the local API and the reference loop.

Three contenders run the always_tool scenario (every response asks for one more
search) for N turns, i.e. N+1 model calls, through the genuine SDK client:

- ours: `course.loop.Agent` on the local API (validation, policy, usage, loop);
- tool_runner: the SDK's own `client.beta.messages.tool_runner` (a `@beta_tool`,
  `max_iterations=N+1`) on the same local API;
- floor: the same SDK client on an `httpx2.MockTransport` that returns canned
  Message JSON: no validation, no policy, no loop. It sends the very request
  bodies ours sent (the same growing message list, so the same bytes), and
  answers with the very bytes ours received.

Every request re-sends the whole history, so per-call time grows with N. Runs
are interleaved (the order rotates each repetition) and each repetition gives
paired ratios; the figures are medians.
"""
from __future__ import annotations

import gc
import statistics
import time

import anthropic
import httpx2
from anthropic import beta_tool

from course.api import transport
from course.client import LOCAL_BASE_URL, LOCAL_KEY, MODEL, local_client
from course.events import MAX_TURNS
from course.loop import Agent, Limits
from course.scenarios import get
from course.scenarios.search import search as lookup

SCENARIO = "always_tool"
TURNS = (10, 100, 1000)
REPEATS = {10: 21, 100: 5, 1000: 1}  # more repetitions where a run is short and noise is large
TARGET_FLOOR_RATIO = 1.5  # at 10 turns (issue 9: at most 1.5x the canned-transport floor)
JSON = {"content-type": "application/json"}


@beta_tool
def search(query: str) -> str:
    """Search a small encyclopedia; returns the best matching page. Read-only.

    Args:
        query: a page title
    """
    return lookup(query)


def transcript(turns: int) -> tuple[list[dict], list[bytes], int]:
    """One untimed run of ours: the final message list, each response's bytes, and the request bytes
    sent."""
    scenario = get(SCENARIO)
    replies: list[bytes] = []
    sent = 0
    inner = transport(scenario.api(record=False))

    def respond(request: httpx2.Request) -> httpx2.Response:
        nonlocal sent
        sent += len(request.read())
        response = inner.handle_request(request)
        replies.append(response.read())
        return response

    client = anthropic.Anthropic(api_key=LOCAL_KEY, base_url=LOCAL_BASE_URL,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(respond)))
    agent = Agent(client, MODEL, scenario.make_tools(), limits=Limits(max_turns=turns),
                  system=scenario.system)
    result = agent.run(scenario.prompt)
    assert result.subtype == MAX_TURNS and result.calls == turns + 1, result
    return result.messages, replies, sent


def run_ours(turns: int) -> tuple[float, int]:
    """(seconds, model calls) for the reference loop on the local API."""
    scenario = get(SCENARIO)
    agent = scenario.agent(limits=Limits(max_turns=turns), api=scenario.api(record=False))
    started = time.perf_counter()
    result = agent.run(scenario.prompt)
    elapsed = time.perf_counter() - started
    assert result.subtype == MAX_TURNS, result.detail
    return elapsed, result.calls


def run_tool_runner(turns: int) -> tuple[float, int]:
    """(seconds, model calls) for the SDK's tool_runner on the local API (history re-sent, no server
    thread)."""
    scenario = get(SCENARIO)
    client = local_client(scenario.api(record=False))
    started = time.perf_counter()
    runner = client.beta.messages.tool_runner(model=MODEL, max_tokens=1024, tools=[search],
                                              thread=False,
                                              messages=[{"role": "user",
                                                         "content": scenario.prompt}],
                                              max_iterations=turns + 1)
    calls = sum(1 for _ in runner)
    return time.perf_counter() - started, calls


def run_floor(messages: list[dict], replies: list[bytes]) -> tuple[float, int, int]:
    """(seconds, model calls, request bytes) for the bare SDK on canned replies, sending ours'
    requests."""
    definitions = get(SCENARIO).make_tools().definitions()
    sent = 0

    def respond(request: httpx2.Request) -> httpx2.Response:
        nonlocal sent
        sent += len(request.read())
        return httpx2.Response(200, headers=JSON, content=replies[calls])

    client = anthropic.Anthropic(api_key=LOCAL_KEY, base_url=LOCAL_BASE_URL,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(respond)))
    started = time.perf_counter()
    for calls in range(len(replies)):
        client.messages.create(model=MODEL, max_tokens=1024, messages=messages[:2 * calls + 1],
                               tools=definitions)
    return time.perf_counter() - started, len(replies), sent


def paired(times: dict[str, list[float]], a: str, b: str) -> float:
    """The median of a's time over b's, repetition by repetition."""
    return statistics.median(x / y for x, y in zip(times[a], times[b], strict=True))


def bench_loop(turns: tuple[int, ...] = TURNS, repeats: dict[int, int] | None = None) -> dict:
    """Per-call ms of each contender at each length, and the paired ratios (medians over
    repetitions)."""
    repeats = repeats or REPEATS
    rows = []
    for n in turns:
        messages, replies, ours_bytes = transcript(n)
        times = {"ours": [], "tool_runner": [], "floor": []}
        floor_bytes = 0
        contenders = {
            "ours": lambda n=n: run_ours(n),
            "tool_runner": lambda n=n: run_tool_runner(n),
            "floor": lambda messages=messages, replies=replies: run_floor(messages, replies),
        }
        names = list(contenders)
        for rep in range(repeats.get(n, 3)):
            for name in names[rep % 3:] + names[:rep % 3]:
                gc.collect()
                elapsed, calls, *rest = contenders[name]()
                assert calls == n + 1, f"{name}: {calls} calls, expected {n + 1}"
                times[name].append(elapsed / calls)
                floor_bytes = rest[0] if rest else floor_bytes
        rows.append({
            "turns": n,
            "calls": n + 1,
            "repeats": len(times["ours"]),
            "ms_per_call": {k: statistics.median(v) * 1000 for k, v in times.items()},
            "ours_vs_floor": paired(times, "ours", "floor"),
            "ours_vs_tool_runner": paired(times, "ours", "tool_runner"),
            "tool_runner_vs_floor": paired(times, "tool_runner", "floor"),
            "request_bytes": {"ours": ours_bytes, "floor": floor_bytes},
        })
    first = rows[0]
    targets = {
        f"ours <= {TARGET_FLOOR_RATIO}x floor at {first['turns']} turns": first["ours_vs_floor"]
        <= TARGET_FLOOR_RATIO,
        "ours <= tool_runner at every length": all(r["ours_vs_tool_runner"] <= 1.0 for r in rows),
    }
    return {"scenario": SCENARIO, "rows": rows, "targets": targets,
            "profile": [] if all(targets.values()) else profile(first["turns"])}


AREAS = [("anthropic/", "SDK (anthropic)"), ("httpx2/", "SDK transport (httpx2)"),
         ("pydantic", "pydantic"),
         ("course/api/", "local API (course/api)"), ("course/tools/", "tools (course/tools)"),
         ("course/", "loop (course/loop and helpers)"), ("jsonschema", "jsonschema"),
         ("/json/", "json")]


def profile(turns: int = TURNS[0], runs: int = 20) -> list[tuple[str, float]]:
    """Where ours' time goes: self time by area, as shares of the total, largest first
    (cProfile)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        run_ours(turns)
    profiler.disable()
    shares: dict[str, float] = {}
    for (path, _, _), (_, _, self_time, _, _) in pstats.Stats(profiler).stats.items():
        area = next((label for key, label in AREAS if key in path), "other (stdlib, builtins)")
        shares[area] = shares.get(area, 0.0) + self_time
    total = sum(shares.values())
    return sorted(((a, t / total) for a, t in shares.items()), key=lambda x: -x[1])


def table(figures: dict) -> str:
    """The figures as Markdown tables."""
    lines = ["| turns | calls | runs | ours ms/call | tool_runner ms/call | floor ms/call | ours / "
             "floor | ours / tool_runner | tool_runner / floor |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in figures["rows"]:
        ms = r["ms_per_call"]
        lines.append(f"| {r['turns']:,} | {r['calls']:,} | {r['repeats']} | {ms['ours']:.2f} | "
                     f"{ms['tool_runner']:.2f} | {ms['floor']:.2f} | {r['ours_vs_floor']:.2f}x | "
                     f"{r['ours_vs_tool_runner']:.2f}x | {r['tool_runner_vs_floor']:.2f}x |")
    same = all(r["request_bytes"]["ours"] == r["request_bytes"]["floor"] for r in figures["rows"])
    sizes = ", ".join(f"{r['turns']:,} turns: {r['request_bytes']['ours']:,}"
                      for r in figures["rows"])
    lines += ["", "Request bytes sent per run, ours and floor: "
                  f"{'identical' if same else 'DIFFERENT'} ({sizes})."]
    if figures.get("profile"):
        lines += ["", f"Where ours' time goes at {figures['rows'][0]['turns']} turns (cProfile "
                      "self time):", "",
                  "| area | share |", "|---|---:|"]
        lines += [f"| {area} | {share:.0%} |" for area, share in figures["profile"]]
    return "\n".join(lines)
