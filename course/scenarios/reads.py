"""Reading: several slow read-only calls in one response (Prop. 6.2), and a result so large
that the context fills up (Prop. 5.2)."""
from __future__ import annotations

import time

from ..api import Conversation, Turn
from ..i18n import deferred, tr
from ..tools import Tool, Toolbox, Workspace
from .base import Scenario, call, last_turn, one_task, say

# each read sleeps this long, so concurrent reads show in ToolStart / ToolEnd times
READ_DELAY_S = 0.05
DOCS = {
    "docs/intro.md": "# Intro\nThe loop calls the model, runs tools, and calls again.\n",
    "docs/limits.md": "# Limits\nmax_turns T bounds the calls by T+1.\n",
    "docs/gate.md": "# Gate\nA refused call still gets an is_error result.\n",
}


def slow_reads(ws: Workspace, delay: float = READ_DELAY_S) -> Toolbox:
    """read_file that takes `delay` seconds: read-only, so the loop runs several at once."""

    def read_file(path: str) -> str:
        time.sleep(delay)
        return ws.read(path)

    return Toolbox([Tool("read_file", tr("Read a file of the workspace (slow storage). Read-only."),
                         {"type": "object", "properties": {"path": {"type": "string"}},
                          "required": ["path"]},
                         read_file, read_only=True)])


@one_task
def parallel_reads_policy(c: Conversation) -> Turn:
    """Ask for every file in one response, then answer with each file's title."""
    if not c.results():
        return say(tr("I'll read the three pages at once."),
                   *[call("read_file", path=p) for p in DOCS])
    titles = [c.result_text(r).splitlines()[0].lstrip("# ") if not r.get("is_error")
              else tr("({path}: error)").format(path=u["input"]["path"])
              for u, r in last_turn(c)]
    return say(tr("The pages are: {titles}.").format(titles=", ".join(titles)))


PARALLEL_READS = Scenario(
    "parallel_reads", deferred("Three slow reads in one response"),
    deferred("Summarise the three pages under docs/."), parallel_reads_policy, files=DOCS,
    workspace_tools=slow_reads,
    notes="one response, three read-only calls run concurrently; results come back in request "
          "order")

# --- large_result
# -----------------------------------------------------------------------------------------

LOG_LINES = 1_000  # lines per log: about 12,000 tokens of tool_result
SERVICES = ("api", "worker")


def fetch_log(service: str) -> str:
    """A large, deterministic service log."""
    return "\n".join(f"2026-10-07T12:{i // 60 % 60:02d}:{i % 60:02d} {service} request {i} ok in "
                     f"{i % 97} ms"
                     for i in range(LOG_LINES))


def log_tools() -> Toolbox:
    return Toolbox([Tool("fetch_log", tr("Fetch the whole log of a service. Read-only."),
                         {"type": "object",
                          "properties": {"service": {"type": "string", "enum": list(SERVICES)}},
                          "required": ["service"]}, fetch_log, read_only=True)])


@one_task
def large_result_policy(c: Conversation) -> Turn:
    """Fetch each service's whole log, one per turn, then write a long summary."""
    fetched = [u["input"]["service"] for u, r in c.all_results() if not r.get("is_error")]
    todo = [s for s in SERVICES if s not in fetched]
    if todo:
        return say(tr("Fetching the {service} log.").format(service=todo[0]),
                   call("fetch_log", service=todo[0]))
    summary = "".join(
        tr("The {service} log has {lines} requests, all ok. ").format(service=s, lines=LOG_LINES)
        for s in SERVICES)  # each sentence ends with its own space (Japanese puts none after 。)
    detail = "; ".join(tr("minute {minute}: 60 requests").format(minute=m) for m in range(34))
    return say(tr("{summary}Per-minute detail: {detail}.").format(summary=summary, detail=detail))


# LocalAPI options that make the run end on the context window (the counts follow course.api.tokens)
# the 3rd request exceeds the window: a 400 "prompt is too long"
PROMPT_TOO_LONG = {"context_window": 26_000}
WINDOW_FILLS_UP = {"context_window": 32_400}  # the 3rd request fits, its long answer does not

LARGE_RESULT = Scenario(
    "large_result", deferred("A tool result so large the context fills up"),
    deferred("Fetch the api and worker logs and summarise them."), large_result_policy, log_tools,
    notes="each log adds about 16,000 input tokens to every later call; a small context_window "
          "ends the run")
