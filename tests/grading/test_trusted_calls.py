"""The grader's own process calls references and known mistakes in threads while it prints its
progress: what a call printed is what that call printed, nothing of the other threads."""
from __future__ import annotations

import io
import sys
import threading
import time

from course.grading.classroom.batch import progress_log
from course.grading.judging.oracle import Case, trusted_call

WAIT = 10.0  # seconds; only a broken test waits this long


def printing(text: str, go: threading.Event, started: threading.Event | None = None):
    """A function that prints `text`, then waits for `go` before it returns."""
    def fn():
        print(text)
        if started:
            started.set()
        go.wait(WAIT)
        return text
    return fn


def in_thread(fn, case: Case) -> tuple[threading.Thread, dict]:
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(outcome=trusted_call(fn, case)))
    thread.start()
    return thread, box


def test_the_batch_progress_lines_never_land_in_a_reference_outcome():
    terminal = io.StringIO()
    log = progress_log(terminal)  # made as grade_batch makes it, before the references are warmed
    go, started = threading.Event(), threading.Event()
    thread, box = in_thread(printing("mine", go, started), Case("a call"))
    assert started.wait(WAIT)
    log("[1/2] alice: 3/4 points")  # while the call has sys.stdout and sys.stderr captured
    go.set()
    thread.join(WAIT)
    assert box["outcome"].stdout == "mine\n"
    assert terminal.getvalue() == "[1/2] alice: 3/4 points\n"


def test_two_trusted_calls_from_two_threads_keep_their_output_apart_and_leave_the_streams_as_they_were():  # noqa: E501
    streams = sys.stdout, sys.stderr
    go_a, go_b, started_a = threading.Event(), threading.Event(), threading.Event()
    first, a = in_thread(printing("a", go_a, started_a), Case("first"))
    assert started_a.wait(WAIT)
    second, b = in_thread(printing("b", go_b), Case("second"))  # asks while the first call runs
    second.join(0.2)
    go_a.set()  # the first ends before the second: the order that left sys.stdout captured for good
    first.join(WAIT)
    go_b.set()
    second.join(WAIT)
    assert (a["outcome"].stdout, b["outcome"].stdout) == ("a\n", "b\n")
    assert (sys.stdout, sys.stderr) == streams


def test_a_call_abandoned_at_its_time_limit_that_ends_later_leaves_the_next_calls_output_alone():
    """A call that overran its limit is abandoned; where it waits in C (a sleep, a socket) it ends
    only later, in the middle of the next call: the streams it puts back then must not take the next
    call's output away (a reference that printed its answer was once recorded as printing nothing,
    and a right answer lost its point)."""
    streams = sys.stdout, sys.stderr
    late, go = threading.Event(), threading.Event()

    def overruns():
        late.wait(WAIT)  # in C: the interruption is delivered once this returns
        return "late"

    def prints_after_the_abandoned_call_ended():
        go.wait(WAIT)
        print("next")
        return "next"

    assert trusted_call(overruns, Case("overruns"), timeout=0.1).error
    thread, box = in_thread(prints_after_the_abandoned_call_ended, Case("next"))
    late.set()  # the abandoned call ends now, while the next one runs
    time.sleep(0.2)
    go.set()
    thread.join(WAIT)
    assert box["outcome"].stdout == "next\n"
    assert (sys.stdout, sys.stderr) == streams
