"""Grading: checks per exercise (`checks/`), `check()` for notebooks, and the wire-level grader.

In a notebook: `from course.grading import check; check("agent_loop", agent_loop)`.
"""


def __getattr__(name: str):
    if name == "check":  # imported on first use: `python -m course` does not need the SDK to start
        from .notebook_context import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["check"]
