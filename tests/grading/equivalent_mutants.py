"""Mutants of the reference solutions that no check can kill, each with the reason it is equivalent: it behaves
exactly as the reference on everything the exercise's text makes part of the answer.
Keyed by (grade_id, mutant name as tests/grading/mutation.py names it)."""

EQUIVALENT: dict[tuple[str, str], str] = {
    ("worst_costs", "line 4: // -> /"): "int(x / c) and int(x // c) are the same whole number for x, c > 0",
}
