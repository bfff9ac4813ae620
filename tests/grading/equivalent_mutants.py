"""Mutants of the reference solutions that no check can kill, each with the reason it is equivalent: it behaves
exactly as the reference on everything the exercise's text makes part of the answer.
Keyed by (grade_id, mutant name as tests/grading/mutation.py names it)."""

EQUIVALENT: dict[tuple[str, str], str] = {
    ("worst_costs", "line 4: // -> /"): "int(x / c) and int(x // c) are the same whole number for x, c > 0",
    ("run_parallel", "line 9: 1 -> 2"): "the pool's size when there are no tool_uses: no call runs either way",
    ("stream_reply", "line 6: True -> False"): "flush=False prints the same text: only a terminal's buffer "
                                               "could hold it back, and captured output has none",
    ("stream_reply", "line 8: statement removed"): "the final print() only ends the line: the text asks for the "
                                                   "pieces, and the check accepts the output with or without it",
}
