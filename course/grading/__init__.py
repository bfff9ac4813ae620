"""Grading: the exercise contract and its checks (`checks/`), `check()` in a notebook, and the batch grader
with its sandbox (see docs/GRADING.md for the map).

In a notebook: `from course.grading import check; check("agent_loop", agent_loop)`.
"""


def __getattr__(name: str):
    if name == "check":  # imported on first use: `python -m course` does not need the SDK to start
        from .notebook_context import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["check"]
