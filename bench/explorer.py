"""Explorer benchmark: how long the loop explorer takes to answer a change.

For every scenario in SCENARIOS, without a front end:

- re-run: move the max_turns slider to a setting not run before (the stored runs
  are dropped first), which runs the scenario through `Agent.events()` on the
  in-process local API and redraws the last frame;
- revisit: move max_turns back to a setting already run, which only redraws;
- step: move the step slider, which only redraws a stored frame.

Times are medians and maxima over repetitions (the first, which warms caches,
is dropped). The target is 100 ms per change.
"""
from __future__ import annotations

import gc
import statistics
import time

from course.scenarios import SCENARIOS
from course.widgets import Explorer

TARGET_MS = 100.0
MAX_TURNS = (1, 2, 3, 10)  # the settings each repetition moves through
REPEATS = 5


def timed(change) -> float:
    """Milliseconds for one change of the explorer."""
    started = time.perf_counter()
    change()
    return (time.perf_counter() - started) * 1000


def bench_scenario(name: str, repeats: int = REPEATS) -> dict:
    explorer = Explorer(name, max_turns=MAX_TURNS[-1])
    rerun, revisit, step = [], [], []
    for rep in range(repeats + 1):
        gc.collect()  # once per repetition: a full collection takes longer than a change
        for turns in MAX_TURNS:
            explorer.runs.clear()  # force a re-run, as for a setting never seen
            ms = timed(lambda: explorer.set(max_turns=turns))
            frames = len(explorer.frames)
            steps = [timed(lambda: setattr(explorer.step, "value", k)) for k in range(frames)]  # as the slider does
            if rep:  # the first repetition warms caches
                rerun.append(ms)
                step.extend(steps)
        if rep:
            for turns in MAX_TURNS:
                explorer.set(max_turns=turns)  # every setting run once more, and kept
            revisit += [timed(lambda: explorer.set(max_turns=turns)) for turns in MAX_TURNS[-2::-1] + MAX_TURNS[-1:]]
    return {
        "rerun_median_ms": statistics.median(rerun),
        "rerun_max_ms": max(rerun),
        "revisit_median_ms": statistics.median(revisit),
        "step_median_ms": statistics.median(step),
        "step_max_ms": max(step),
    }


def bench_explorer(repeats: int = REPEATS) -> dict:
    """Per scenario: re-run + re-render and step re-render times in ms, and which scenarios meet the target."""
    scenarios = {name: bench_scenario(name, repeats) for name in SCENARIOS}
    slow = sorted(n for n, r in scenarios.items() if r["rerun_median_ms"] > TARGET_MS)
    return {
        "target_ms": TARGET_MS,
        "max_turns": list(MAX_TURNS),
        "repeats": repeats,
        "scenarios": scenarios,
        "over_target": slow,
        "targets": {
            f"re-run + re-render median <= {TARGET_MS:g} ms for every scenario": not slow,
            f"step re-render <= {TARGET_MS:g} ms for every scenario":
                all(r["step_max_ms"] <= TARGET_MS for r in scenarios.values()),
        },
    }


def table(figures: dict) -> str:
    """The figures as a Markdown table."""
    lines = ["| scenario | re-run median ms | re-run max ms | revisit median ms | step median ms | step max ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in figures["scenarios"].items():
        lines.append(f"| {name} | {r['rerun_median_ms']:.1f} | {r['rerun_max_ms']:.1f} | {r['revisit_median_ms']:.2f} | "
                     f"{r['step_median_ms']:.2f} | {r['step_max_ms']:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    result = bench_explorer()
    print(table(result))
    for target, met in result["targets"].items():
        print(f"{'met' if met else 'NOT met'}: {target}")
