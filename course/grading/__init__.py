"""Grading, in three rooms that import down only: `marks/` (a check's Mark and its reports),
`judging/` (the reference as oracle, the lessons' checks, the known mistakes, `check()` in a
notebook) and `classroom/` (the batch grader with its sandbox, and what it writes); the contract
they judge by lies below, in `course.contract` (see docs/GRADING.md for the map).

In a notebook: `from course.grading import check; check("agent_loop", agent_loop)`.
"""


def __getattr__(name: str):
    if name == "check":  # imported on first use: `python -m course` does not need the SDK to start
        from .judging.notebook_context import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["check"]
