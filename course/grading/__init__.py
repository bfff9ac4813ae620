"""Grading: checks per exercise (`checks/`), `check()` for notebooks, and the wire-level grader.

In a notebook: `from course.grading import check; check("agent_loop", agent_loop)`.
"""
from .inprocess import check

__all__ = ["check"]
