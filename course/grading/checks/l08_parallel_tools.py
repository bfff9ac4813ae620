"""Lesson 08, parallel tools: read-only calls commute (Prop. 6.2), so they may run at the same time;
their results still go back in the order they were asked.

run_parallel(tool_uses, run_tool) -> list[dict]
  runs every call at the same time; one tool_result per tool_use, in request order, is_error on failure.

Concurrency is graded without timing: the reads wait at a barrier that only opens when all of them
are running at once, and they finish in reverse order.
"""
from __future__ import annotations

import threading
import time

from ...i18n import deferred, tr
from ...messages import tool_use
from ...tools import Tool, Toolbox
from ..exercise import RUN_TOOL, Check, Exercise
from .common import expect, returned, tools_only

SEQUENTIAL = deferred("running the calls one after another: read-only calls can run at the same time")
COMPLETION_ORDER = deferred("returning results in the order the calls finished: keep the order of the tool_uses")
FAILURE = deferred("letting one failed call spoil the others: it becomes its own is_error result")

PAGES = 3
WAIT_S = 2.0  # how long a read waits for the others before it gives up (never reached when concurrent)
GAP_S = 0.1  # a page returns this long after the next one: finishing order stays reversed on a busy machine


def barrier_tools() -> Toolbox:
    """read_page(page): blocks until all PAGES reads are running, then finishes after the next page does."""
    barrier = threading.Barrier(PAGES)
    finished = [threading.Event() for _ in range(PAGES)]

    def read_page(page: int) -> str:
        try:
            barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            raise RuntimeError(f"page {page} waited for the other reads, "
                               "but they were not running at the same time") from None
        if page + 1 < PAGES:
            finished[page + 1].wait(WAIT_S)  # the last page finishes first
            time.sleep(GAP_S)
        finished[page].set()
        return f"the text of page {page}"

    schema = {"type": "object", "properties": {"page": {"type": "integer"}}, "required": ["page"]}
    return Toolbox([Tool("read_page", "Read one page of a slow book. Read-only.", schema, read_page, read_only=True)])


BARRIER = tools_only("grading_barrier_reads", "Reads that only finish together", barrier_tools)
SCENARIOS = [BARRIER]


def reads(*extra: dict) -> list[dict]:
    return [tool_use(f"toolu_{p}", "read_page", {"page": p}) for p in range(PAGES)] + list(extra)


def results(ctx, uses: list[dict]) -> list[dict]:
    out = ctx.call(uses, RUN_TOOL, scenario=BARRIER)
    returned(out, FAILURE if out.error and out.error.startswith("RuntimeError: Error") else "")  # run_tool raised
    got = out.value if isinstance(out.value, list) else []
    ids = [r.get("tool_use_id") for r in got if isinstance(r, dict)]
    want = [u["id"] for u in uses]
    expect(ids == want, tr("result ids {ids}; expected {want}").format(ids=ids, want=want),
           COMPLETION_ORDER if sorted(ids) == sorted(want) else "")
    return got


def concurrent(ctx) -> None:
    got = results(ctx, reads())
    failed = [r.get("content") for r in got if r.get("is_error")]
    expect(not failed, tr("the reads failed: {error}").format(error=failed[0] if failed else ""), SEQUENTIAL)
    expect([r.get("content") for r in got] == [f"the text of page {p}" for p in range(PAGES)],
           tr("the results do not carry each read's own text"), COMPLETION_ORDER)


def with_failure(ctx) -> None:
    got = results(ctx, reads(tool_use("toolu_x", "read_page", {"page": "seven"})))
    flags = [bool(r.get("is_error")) for r in got]
    waited = any("not running at the same time" in str(r.get("content")) for r in got)
    want = [False] * PAGES + [True]
    expect(flags == want, tr("with an invalid call among the reads, is_error flags {flags}; expected {want}").format(
        flags=flags, want=want), SEQUENTIAL if waited else FAILURE if all(flags) else "")


EXERCISES = [
    Exercise("run_parallel", "run_parallel", deferred("Running read-only calls at the same time"), [
        Check(deferred("three reads run at the same time, results in request order"), concurrent),
        Check(deferred("a failing call among them is its own is_error result"), with_failure),
    ], notebook="solutions/08_parallel_tools.ipynb"),
]
