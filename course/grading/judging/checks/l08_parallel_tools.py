"""Lesson 08, parallel tools: read-only calls commute (Prop. 6.2), so they may run at the same time;
their results still go back in the order they were asked.

run_parallel(tool_uses, run_tool) -> list[dict]
  runs every call at the same time; one tool_result per tool_use, in request order, is_error on
  failure.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/08_...) on
generated cases. Concurrency is graded without timing: every read of a case waits at a barrier that
opens only when all of them are running at once (a read run alone fails after WAIT_S). The reads
then finish in a fixed order, each GAP_S after the one before: the order asked, or where the rule is
about order another one, so results gathered as they finish come out the same way on every run.
"""
from __future__ import annotations

import threading
import time

from ....contract.exercise import RUN_TOOL
from ....i18n import deferred, tr
from ....messages import tool_use
from ....tools import Tool, Toolbox
from ..oracle import Case, Rule, error_text_free, exercise
from .common import tools_only

NOTEBOOK = "solutions/08_parallel_tools.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l08_*), named only when a student's function
# does exactly that
SEQUENTIAL = deferred("running the calls one after another: read-only calls can run at the same "
                      "time")
COMPLETION_ORDER = deferred("returning results in the order the calls finished: keep the order of "
                            "the tool_uses")
SORTED_BY_ID = deferred("sorting the results by tool_use id: ids say nothing about order; keep the "
                        "order of the tool_uses")
REVERSED = deferred("returning the results in reverse: keep the order of the tool_uses")
FAILURE_ESCAPES = deferred("letting a failing call's exception escape: it becomes its own is_error "
                           "result, the others keep theirs")
NO_WORKERS = deferred("a pool of len(tool_uses) workers: with no tool_uses that is 0, which "
                      "ThreadPoolExecutor refuses; return an empty list")

# how long a read waits for the others before it gives up (never reached when concurrent)
WAIT_S = 2.0
# a read returns this long after the one before it: finishing order stays fixed on a busy machine
GAP_S = 0.1
# how long the one read of the order rule's last case takes, after the invalid call beside it failed
LEAD_S = 0.3
PAGES = 40  # pages 0..PAGES-1 exist; a read of another page raises after the barrier
WIDE = 33  # reads in one case: more than any default pool, min(32, CPUs + 4), holds at once


def any_order(x):
    """A `loose` for the rules about running at once and about failures: the results, an error's
    wording free, in any order (another rule judges the order), so a case whose calls finish in no
    fixed order reads the same on every run."""
    x = error_text_free(x)
    return sorted(x, key=repr) if isinstance(x, list) else x


def barrier_tools(finish: tuple[int, ...], gap: float = GAP_S, lead: float = 0.0) -> Toolbox:
    """read_page(page) for a case whose valid reads are of the pages `finish`: each waits until all
    of them are running, then returns `gap` seconds after the page before it in `finish` has (the
    first one `lead` seconds after the barrier: a call that fails at once, an invalid input,
    finishes before it)."""
    barrier = threading.Barrier(max(len(finish), 1))
    finished = {p: threading.Event() for p in finish}
    before = dict(zip(finish[1:], finish, strict=False))

    def read_page(page: int) -> str:
        try:
            barrier.wait(WAIT_S)
        except threading.BrokenBarrierError:
            raise RuntimeError(f"page {page} waited for the other reads, "
                               "but they were not running at the same time") from None
        if page in before:
            finished[before[page]].wait(WAIT_S)
            time.sleep(gap)
        elif page in finished:
            time.sleep(lead)
        finished[page].set()
        if not 0 <= page < PAGES:
            raise LookupError(f"the book has no page {page}")
        return f"the text of page {page}"

    schema = {"type": "object", "properties": {"page": {"type": "integer"}}, "required": ["page"]}
    return Toolbox([Tool("read_page", "Read one page of a slow book. Read-only.", schema, read_page,
                         read_only=True)])


def reads_case(calls: list[tuple[str, object]], *, finish: tuple[int, ...] = (),
               ids: tuple[str, ...] = (), gap: float = GAP_S, lead: float = 0.0) -> Case:
    """A Case of tool_uses, ("read_page", page) or (another tool, page), ids toolu_0.. unless given;
    the valid reads (distinct pages) finish in the order `finish`, by default the order asked, `gap`
    seconds apart, the first `lead` seconds after they all run."""
    uses = [tool_use(ids[k] if ids else f"toolu_{k}", name, {"page": page}) for k,
            (name, page) in enumerate(calls)]
    pages = tuple(page for name, page in calls if name == "read_page" and isinstance(page, int))
    finish = finish or pages
    sc = tools_only("grading_barrier_reads", "Reads that only finish together",
                    lambda: barrier_tools(finish, gap, lead))
    return Case(lambda: f"run_parallel([{listing(uses)}])" + (
        tr("; they finish in the order of pages {pages}").format(pages=list(finish))
        if finish != pages else ""), (uses, RUN_TOOL), {}, sc)


def listing(uses: list[dict]) -> str:
    return ", ".join(f"{u['id']}: {u['name']}({u['input']['page']!r})" for u in uses) or tr(
        "no tool_uses")


def read(*pages) -> list[tuple[str, object]]:
    return [("read_page", p) for p in pages]


def empty_cases() -> list[Case]:
    return [reads_case([])]


def concurrent_cases() -> list[Case]:
    """Three reads that only finish when all three run at once (a pool of two is not enough), then
    WIDE reads (no default pool is enough), which finish together: their order is not compared
    here."""
    return [reads_case(read(0, 1, 2)), reads_case(read(*range(WIDE)), gap=0)]


def order_cases() -> list[Case]:
    """Reads that finish in another order than the one asked, or with ids that are not in order, and
    a read asked before, then after, an invalid input that fails at once (results gathered as they
    finish, or errors put last, come out wrong). The 3-read case comes early: with two results every
    wrong order is every other wrong order, and no cause could be named."""
    return [reads_case(read(1)),
            reads_case(read(0, 1, 2), finish=(2, 0, 1)),
            reads_case(read(1, 0), ids=("toolu_b", "toolu_a")),
            reads_case([("read_page", 0), ("read_page", "seven")], lead=LEAD_S),
            reads_case([("read_page", "seven"), ("read_page", 1)], lead=LEAD_S)]


def failure_cases() -> list[Case]:
    """An invalid input (it never runs), a page that raises while another read runs, an unknown
    tool. Results in any order (failing calls finish in no fixed order among the others): the rule
    before judges the order."""
    return [reads_case([("read_page", "seven")]),
            reads_case([("read_page", 0), ("read_page", "seven")]),
            reads_case(read(PAGES, 0)),
            reads_case([("write_page", 0), ("read_page", 1)]),
            reads_case([("read_page", "seven"), ("write_page", 1)])]


ASPECTS = ("value", "after")

EXERCISES = [
    exercise("run_parallel", "run_parallel", deferred("Running read-only calls at the same time"),
             NOTEBOOK, [
        Rule(deferred("all the calls run at the same time"), concurrent_cases, ASPECTS,
             loose=any_order),
        Rule(deferred("one tool_result per call, in the order of the tool_uses, whatever order "
                      "they finish in"),
             order_cases, ASPECTS, loose=error_text_free),
        Rule(deferred("a failing call becomes its own is_error result"), failure_cases, ASPECTS,
             loose=any_order),
        Rule(deferred("no tool_uses: an empty list"), empty_cases, ASPECTS, points=0.5),
    ]),
]
