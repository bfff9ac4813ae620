"""The mutants of the reference solutions that keep full marks, each explained. Keyed by (grade_id,
mutant name as tests/grading/mutation.py names it).

EQUIVALENT: no check can kill them: each behaves exactly as the reference on everything the
exercise's text makes part of the answer, for the reason given.
GAPS: they break a sentence of the text that no case or comparison reaches yet: each names the
sentence and what would catch it (a case, or a change to what the rule compares), owed to issue 27's
cases. The test prints them; once one is caught it fails until the entry is dropped.
"""

NULL_FIELDS = ("model_dump with None fields: the API accepts null fields and the comparison drops "
               "them")
FREE_MAX_TOKENS = ("the exercise's text sets no max_tokens, so the rule leaves it free (any value "
                   "is right)")
FIRST_STREAK = "the initial streak is never used: the first call's streak is 1 whatever it was"
PAST_THE_CAP = ("the loop returns at turn == max_turns, so range(max_turns + 2)'s extra turn is "
                "never reached")
STRING_BLOCK = ("a string content's text block is made only to be searched for tool_use and "
                "tool_result blocks: its type and key are never read otherwise, and 'text' is "
                "neither")
NO_DEFAULT_NEEDED = ("blocks(m)[None:] is blocks(m)[0:]: every block, as for a message that "
                     "answers no call")
FLUSH = ("flush only empties a terminal's buffer: the captured output holds the same text, printed "
         "in the same order")
WARNING_WORDS = ("the warning's words are the student's own (the text gives them after 'e.g.'), "
                 "and the rule leaves an is_error result's wording free")
NO_STOP_SEQUENCE = ("the API ends a response with stop_sequence only when the request names "
                    "stop_sequences, which this function never sends: no response it gets ends so")
SUMMARY_WORDS = ("the prompt's wording is the student's own: it still asks for a one-sentence "
                 "summary")
FRENCH_WORDS = ("the prompt's wording is the student's own: it still asks for a translation into "
                "French")
ENDS_AT_PAUSE = ("without pause_turn in the tuple the loop ends at a pause as at max_tokens, the "
                 "reading the text accepts too (lesson 06 teaches the continuation)")

EQUIVALENT: dict[tuple[str, str], str] = {
    ('first_violation', 'line 4: `"text",` -> `"XXtextXX",`'): STRING_BLOCK,
    ('first_violation', 'line 4: `"text",` -> `"TEXT",`'): STRING_BLOCK,
    ('first_violation', 'line 4: `"text":` -> `"XXtextXX":`'): STRING_BLOCK,
    ('first_violation', 'line 4: `"text":` -> `"TEXT":`'): STRING_BLOCK,
    (
        'first_violation',
        'line 25: `b["type"] == "tool_result"` -> `(b["type"] == "tool_result") or True`',
    ): "only a tool_result carries a tool_use_id: any other block's b.get('tool_use_id') is None, "
    "as the reference puts there, and no tool_use id is None",
    ('first_violation', 'line 32: `0):]):` -> `None):]):`'): NO_DEFAULT_NEEDED,
    ('first_violation', 'line 32: `0):]):` -> `):]):`'): "answered.get(i) gives None: "
    + NO_DEFAULT_NEEDED,
    (
        'first_violation',
        'line 35: `v[0]))` -> `v[1]))`',
    ): "the key (v[1], v[1]) leaves ties to min's order, which is P1, P2, P3: the order found "
       "appends them in",
    ('follow_up', 'line 4: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    ('follow_up', 'line 8: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    (
        'agent_loop',
        'line 13: `[block.model_dump(exclude_none=True)` -> '
        '`[block.model_dump(exclude_none=False)`',
    ): NULL_FIELDS,
    (
        'agent_loop',
        'line 6: `ValueError(f"max_turns must be 0 or more, not {max_turns}")` -> '
        '`ValueError(None)`',
    ): "the words that say what is wrong are the student's own (ValueError(None) says 'None'): the "
       "rule compares "
    "the exception's type",
    ('agent_loop', 'line 21: `"pause_turn")` -> `"PAUSE_TURN")`'): ENDS_AT_PAUSE,
    ('agent_loop', 'line 21: `"pause_turn")` -> `"XXpause_turnXX")`'): ENDS_AT_PAUSE,
    (
        'stop_action',
        'line 13: `ValueError(f"unknown stop_reason {stop_reason!r}")` -> `ValueError(None)`',
    ): "the text asks for a ValueError and says nothing of its message: the rule compares the "
       "exception's type",
    ('budget_loop', 'line 7: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    (
        'worst_costs',
        'line 5: `//` -> `/`',
    ): "the text asks for any costs with the property (the rule's holds): where below / c_max "
       "rounds up to a whole "
    "number the mutant adds a last piece of about 1e-16, still in (0, c_max], and the stop lands "
    "at the same sum",
    (
        'run_parallel',
        'line 11: `1)` -> `2)`',
    ): "the pool's size when there are no tool_uses: no call runs either way",
    ('repeated_call', 'line 3: `0` -> `None`'): FIRST_STREAK,
    ('repeated_call', 'line 3: `0` -> `1`'): FIRST_STREAK,
    (
        'repeated_call',
        'line 6: `>` -> `>=`',
    ): "at i = 0 the streak becomes 0 + 1 or 1: the same 1 either way (calls[-1] is read, never "
       "counted)",
    ('guarded_loop', 'line 7: `0` -> `1`'): FIRST_STREAK + " (`last` starts as None)",
    (
        'guarded_loop',
        'line 9: `None` -> `""`',
    ): "`warned` is only ever compared with a [name, input] list, which \"\" never equals, as None "
       "never does",
    ('guarded_loop', 'line 10: `1):` -> `2):`'): PAST_THE_CAP,
    ('guarded_loop', 'line 13: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    ('guarded_loop', 'line 20: `"stop_sequence")` -> `"XXstop_sequenceXX")`'): NO_STOP_SEQUENCE,
    ('guarded_loop', 'line 20: `"stop_sequence")` -> `"STOP_SEQUENCE")`'): NO_STOP_SEQUENCE,
    (
        'guarded_loop',
        'line 44: `"Its result is above; try something else."})` -> '
        '`"XXIts result is above; try something else.XX"})`',
    ): WARNING_WORDS,
    ('guarded_loop', 'line 44: `"Its` -> `"its`'): WARNING_WORDS,
    (
        'guarded_loop',
        'line 44: `"Its result is above; try something else."})` -> '
        '`"ITS RESULT IS ABOVE; TRY SOMETHING ELSE."})`',
    ): WARNING_WORDS,
    ('turn_log', 'line 5: `1):` -> `2):`'): PAST_THE_CAP,
    ('turn_log', 'line 6: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    (
        'summarize_then_translate',
        'line 5: `max_tokens=1024,` -> `max_tokens=1025,`',
    ): FREE_MAX_TOKENS,
    (
        'summarize_then_translate',
        'line 10: `node("Summarise this text in one sentence.",` -> '
        '`node("XXSummarise this text in one sentence.XX",`',
    ): SUMMARY_WORDS,
    ('summarize_then_translate', 'line 10: `node("Summarise` -> `node("summarise`'): SUMMARY_WORDS,
    (
        'summarize_then_translate',
        'line 10: `node("Summarise this text in one sentence.",` -> '
        '`node("SUMMARISE THIS TEXT IN ONE SENTENCE.",`',
    ): SUMMARY_WORDS,
    (
        'summarize_then_translate',
        'line 11: `node("Translate this into French.",` -> '
        '`node("XXTranslate this into French.XX",`',
    ): FRENCH_WORDS,
    (
        'summarize_then_translate',
        'line 11: `node("Translate this into French.",` -> `node("translate this into french.",`',
    ): FRENCH_WORDS,
    (
        'summarize_then_translate',
        'line 11: `node("Translate this into French.",` -> `node("TRANSLATE THIS INTO FRENCH.",`',
    ): FRENCH_WORDS,
    ('goal_loop', 'line 11: `max_tokens=1024,` -> `max_tokens=1025,`'): FREE_MAX_TOKENS,
    (
        'goal_loop',
        'line 13: `[block.model_dump(exclude_none=True)` -> '
        '`[block.model_dump(exclude_none=False)`',
    ): NULL_FIELDS,
    ('stream_reply', 'line 9: `flush=True)` -> `flush=None)`'): FLUSH,
    ('stream_reply', 'line 9: `flush=True)` -> `)`'): FLUSH,
    ('stream_reply', 'line 9: `flush=True)` -> `flush=False)`'): FLUSH,
}

GAPS: dict[tuple[str, str], str] = {
}
