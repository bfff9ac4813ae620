"""Which case a call of a graded function is: a Context is called with a case's arguments, not the
case, and cases alike in writing may differ (goal_loop's toy models of one scenario name)."""
from __future__ import annotations


def objects(args: tuple, kwargs: dict, scenario) -> tuple:
    """A call's case by the identity of what it is given: a case's objects live as long as the
    process (oracle.Rule.all_cases), so two calls with the same objects are calls of one case."""
    return tuple(map(id, args)), tuple((k, id(v)) for k, v in kwargs.items()), id(scenario)
