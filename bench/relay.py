"""Relay load test: a room of students calling the API through `python -m course relay` at once.

The upstream is the course's local API on loopback in this process; the relay
runs as its own process (the command an instructor types). Each simulated
student is a thread with the genuine SDK client making a bounded number of
requests, alternating direct calls to the upstream and calls through the relay
(every other one streamed), so both paths are timed side by side under the same
load. Afterwards the relay's usage CSV is compared, student by student, with
what the upstream recorded: no request may be lost or counted twice, and the
tokens must match.
"""
from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import anthropic

from course.api import LocalAPI, Rules, Server, Turn
from course.client import MODEL
from course.pricing import cost_usd

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = 80
PAIRS = 5  # per student: requests direct and through the relay
THINK = 4.0  # seconds a student pauses between pairs (students start spread over one pause)
KEY = "bench-instructor-key-not-a-secret"  # the local API accepts any key
TARGET_ADDED_P50_MS = 50.0  # a twentieth of a short live call (about a second)


def echo(conversation):
    return Turn([{"type": "text", "text": f"noted: {conversation.prompt}"}])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def student_work(name: str, token: str, upstream: str, relay: str, start: float, out: dict) -> None:
    """One student's session: PAIRS times, the same request direct then through the relay, then a
    pause.

    A first pair, untimed, opens the connections (it is counted in the reconciliation).
    """
    clients = {"direct": anthropic.Anthropic(api_key=KEY, base_url=upstream, max_retries=0),
               "relay": anthropic.Anthropic(api_key=token, base_url=relay, max_retries=0)}
    time.sleep(start)
    for k in range(PAIRS + 1):
        times = {}
        for path in ("direct", "relay"):
            messages = [{"role": "user", "content": f"{name} {path} {k}"}]
            started = time.perf_counter()
            try:
                if k % 2:  # every other pair streamed
                    with clients[path].messages.stream(
                        model=MODEL, max_tokens=64, messages=messages
                    ) as s:
                        s.get_final_message()
                else:
                    clients[path].messages.create(model=MODEL, max_tokens=64, messages=messages)
                times[path] = (time.perf_counter() - started) * 1000
                if k:
                    out[path].append(times[path])
            except anthropic.APIError as e:
                out["failures"].append(f"{name} {path} {k}: {type(e).__name__}")
        if k and len(times) == 2:
            out["added"].append(times["relay"] - times["direct"])
        time.sleep(THINK)


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def start_relay(upstream: str, roster: Path, usage: Path,
                budget: float) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "course", "relay", "--upstream", upstream, "--roster",
               str(roster),
               "--budget-usd", str(budget), "--rate-per-minute", "600", "--usage", str(usage),
               "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    return process, process.stdout.readline().strip()


def reconcile(api: LocalAPI, usage: Path, names: list[str]) -> dict:
    """The relay's CSV against the upstream's record, per student: requests and tokens must
    agree."""
    sent: dict[str, Counter] = {name: Counter() for name in names}
    for r in api.requests:
        name, path, _ = r.body["messages"][0]["content"].split(" ")
        if path == "relay":
            u = r.response["usage"]
            sent[name].update(requests=1, input_tokens=u["input_tokens"],
                              output_tokens=u["output_tokens"],
                              usd_micro=round(cost_usd(MODEL, u) * 1e6))
    with usage.open(newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    lost = sum(max(0, sent[n]["requests"] - int(rows[n]["requests"])) for n in names)
    double = sum(max(0, int(rows[n]["requests"]) - sent[n]["requests"]) for n in names)
    tokens = sum(1 for n in names if (int(rows[n]["input_tokens"]), int(rows[n]["output_tokens"]))
                 != (sent[n]["input_tokens"], sent[n]["output_tokens"]))
    usd = sum(1 for n in names if abs(float(rows[n]["usd"]) * 1e6 - sent[n]["usd_micro"]) > 1)
    return {"upstream_relayed": sum(c["requests"] for c in sent.values()),
            "csv_requests": sum(int(r["requests"]) for r in rows.values()),
            "uncounted": lost, "double_counted": double, "token_mismatches": tokens,
            "usd_mismatches": usd}


def bench_relay(students: int = STUDENTS) -> dict:
    """Latency direct and through the relay for `students` at once, and the CSV reconciled with the
    upstream."""
    api = LocalAPI(Rules([], otherwise=echo))
    names = [f"s{k:03d}" for k in range(students)]
    with tempfile.TemporaryDirectory() as tmp, Server(api) as upstream:
        roster, usage = Path(tmp) / "roster.csv", Path(tmp) / "usage.csv"
        roster.write_text("student,token\n" + "".join(f"{n},tok-{n}\n" for n in names))
        relay_cpu = cpu_seconds(resource.RUSAGE_CHILDREN)
        process, relay = start_relay(upstream.base_url, roster, usage, budget=100.0)
        try:
            out: dict = {"direct": [], "relay": [], "added": [], "failures": []}
            threads = [threading.Thread(target=student_work,
                                        args=(n, f"tok-{n}", upstream.base_url, relay,
                                                                   THINK * k / students, out))
                       for k, n in enumerate(names)]
            started = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            seconds = time.perf_counter() - started
        finally:
            process.terminate()
            process.wait(timeout=30)
        relay_cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - relay_cpu
        check = reconcile(api, usage, names)
    ms = {path: {"n": len(out[path]), "p50": percentile(out[path], 0.5),
                 "p95": percentile(out[path], 0.95)}
          for path in ("direct", "relay", "added")}
    expected = students * (PAIRS + 1)
    exact = not out["failures"] and check["uncounted"] == check["double_counted"] == 0 \
        and check["upstream_relayed"] == check["csv_requests"] == expected \
        and check["token_mismatches"] == check["usd_mismatches"] == 0
    return {
        "students": students,
        "pairs": PAIRS,
        "think_s": THINK,
        "seconds": seconds,
        "relay_cpu_ms_per_request": relay_cpu * 1000 / max(1, len(out["relay"])),
        "ms": ms,
        "failures": out["failures"][:10],
        "failure_count": len(out["failures"]),
        "reconciled": check,
        "targets": {
            "every relayed request answered, counted once, tokens and dollars equal "
            f"to the upstream's ({expected} requests)": exact,
            f"added latency p50 <= {TARGET_ADDED_P50_MS:g} ms": ms["added"]["p50"]
            <= TARGET_ADDED_P50_MS,
        },
    }


def table(figures: dict) -> str:
    """The figures as Markdown tables."""
    ms, check = figures["ms"], figures["reconciled"]
    lines = [f"{figures['students']} students at once, each sending the same request direct and "
             f"through the relay {figures['pairs']} times (every other one streamed), "
             f"{figures['think_s']:g} s apart ({figures['seconds']:.1f} s in all); the relay "
             f"process used {figures['relay_cpu_ms_per_request']:.1f} "
             "ms of CPU per relayed request (start-up included).", "",
             "| path | requests | p50 ms | p95 ms |", "|---|---:|---:|---:|"]
    for path, label in (("direct", "direct to the local API"), ("relay", "through the relay"),
                        ("added", "added by the relay (paired: relay minus direct)")):
        lines.append(f"| {label} | {ms[path]['n']} | {ms[path]['p50']:.1f} | {ms[path]['p95']:.1f} "
                     "|")
    lines += ["", "| relayed requests the upstream saw | in the CSV | uncounted | double-counted | "
              "token mismatches | dollar mismatches | client failures |",
              "|---:|---:|---:|---:|---:|---:|---:|",
              f"| {check['upstream_relayed']} | {check['csv_requests']} | {check['uncounted']} | "
              f"{check['double_counted']} | {check['token_mismatches']} | "
              f"{check['usd_mismatches']} | {figures['failure_count']} |"]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(bench_relay()))
