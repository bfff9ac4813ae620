"""Mutants of the reference solutions that no check can kill, each with the reason it is equivalent: it behaves
exactly as the reference on everything the exercise's text makes part of the answer.
Keyed by (grade_id, mutant name as tests/grading/mutation.py names it)."""

NULL_FIELDS = "model_dump with None fields: the API accepts null fields and the comparison drops them"
FREE_MAX_TOKENS = "the exercise's text sets no max_tokens, so the rule leaves it free (any value is right)"

EQUIVALENT: dict[tuple[str, str], str] = {
    ('first_violation', 'line 16: statement removed'):
        "without `if not ids: continue` a message with no tool_use records answered[i + 1] = 0, the default that "
        "answered.get gives",
    ('first_violation', 'line 17: statement removed'):
        'the same: a `pass` in place of `continue` records answered[i + 1] = 0, the default',
    ('first_violation', 'line 27, col 45: 0 -> 1'):
        "the key (v[1], v[1]) leaves ties to min's order, which is P1, P2, P3: the order found appends them in",
    ('first_violation', 'line 27, col 45: 0 -> -1'):
        'v[-1] is v[1]: the same as the mutant above',
    ('follow_up', 'line 4: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('follow_up', 'line 4: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('follow_up', 'line 6: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('follow_up', 'line 6: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('agent_loop', 'line 9, col 80: True -> False'):
        NULL_FIELDS,
    ('goal_loop', 'line 9: True -> False'):
        NULL_FIELDS,
    ('repeated_call', 'line 3: statement removed'):
        'streak is first read at i = 0, where `same` is False and the conditional gives 1 without reading it',
    ('repeated_call', 'line 3: 0 -> 1'):
        'the initial streak is never used: at i = 0 `same` is False and the streak becomes 1',
    ('repeated_call', 'line 3: 0 -> -1'):
        'the initial streak is never used: at i = 0 `same` is False and the streak becomes 1',
    ('repeated_call', 'line 5, col 15: > -> >='):
        'at i = 0 the streak becomes 0 + 1 or 1: the same 1 either way',
    ('repeated_call', 'line 5, col 19: 0 -> -1'):
        'i > -1 is i >= 0: the same as the mutant above',
    ('guarded_loop', 'line 5, col 25: 0 -> 1'):
        "the initial streak is never used: `last` starts as None, so the first call's streak is 1",
    ('guarded_loop', 'line 5, col 25: 0 -> -1'):
        "the initial streak is never used: `last` starts as None, so the first call's streak is 1",
    ('guarded_loop', 'line 7: 1 -> 2'):
        "the loop returns at turn == max_turns, so range(max_turns + 2)'s extra turn is never reached",
    ('turn_log', 'line 5: 1 -> 2'):
        "the loop returns at turn == max_turns, so range(max_turns + 2)'s extra turn is never reached",
    ('guarded_loop', 'line 10: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('guarded_loop', 'line 10: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('turn_log', 'line 6: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('turn_log', 'line 6: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('summarize_then_translate', 'line 4: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('summarize_then_translate', 'line 4: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('goal_loop', 'line 8: 1024 -> 1025'):
        FREE_MAX_TOKENS,
    ('goal_loop', 'line 8: 1024 -> 1023'):
        FREE_MAX_TOKENS,
    ('send_notices', 'line 10: statement removed'):
        '`continue` is the last statement of the loop body: `pass` does the same',
    ('worst_costs', 'line 4, col 27: // -> /'):
        'int(x / c) and int(x // c) are the same whole number for x, c > 0',
    ("run_parallel", "line 9: 1 -> 2"): "the pool's size when there are no tool_uses: no call runs either way",
    ("stream_reply", "line 6, col 39: True -> False"): "flush=False prints the same text: only a terminal's buffer "
                                               "could hold it back, and captured output has none",
    ("stream_reply", "line 8: statement removed"): "the final print() only ends the line: the text asks for the "
                                                   "pieces, and the check accepts the output with or without it",
    ("gated_run", "line 6: statement removed"): "every run of the CLI ends with a ResultMessage, so `result` is always "
                                                "assigned before it is returned: `result = None` never shows",
    ("limited_run", "line 4: statement removed"): "the same: every run yields its ResultMessage before query() returns "
                                                  "or raises",
    ("limited_run", "line 10: statement removed"): "`if result is None: raise` matters only when query() raises before "
                                                   "any ResultMessage, which no run of the CLI within the text's "
                                                   "limits does (the text says what to return after a result only)",
    ("limited_run", "line 11: statement removed"): "the same: only an exception before any ResultMessage would reach "
                                                   "this raise",
}
