"""Every scenario of the material runs, keeps the invariant, and reacts to errors and refusals."""
import pytest

from course.client import MODEL, local_client
from course.events import CONTEXT_WINDOW, DURING_EXECUTION, MAX_TOKENS, REFUSAL, SUCCESS, ToolEnd
from course.gate import Gate
from course.i18n import speaking
from course.loop import Hooks, Limits
from course.messages import text, text_of, tool_uses, user, violations
from course.scenarios import HARNESS, SCENARIOS, get
from course.scenarios.outbox import RECIPIENTS, crash_and_resume
from course.scenarios.reads import PROMPT_TOO_LONG, WINDOW_FILLS_UP

NAMES = ["aurora_run", "one_shot", "always_tool", "fix_failing_test", "broken_functions",
         "parallel_reads",
         "conflicting_edits", "outbox", "large_result", "truncated", "refusal", "pause_turn",
         "unknown_tool", "gated_write", "thinking_run"]


def calls_per_turn(result):
    return [[u["name"] for u in tool_uses(m)] for m in result.messages if m["role"] == "assistant"]


def test_the_registry():
    assert sorted(SCENARIOS) == sorted(NAMES)
    assert all(s.notes and s.title for s in SCENARIOS.values())
    with pytest.raises(KeyError, match="valid names"):
        get("nope")


@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_keeps_the_invariant(name):
    r = get(name).run()
    assert violations(r.messages, final_assistant=True) == [] and r.calls >= 1


# a run that ends with the model's answer; broken_functions takes a later request as feedback (its
# goal loop)
ANSWERED = sorted({*NAMES, *HARNESS} - {"always_tool", "truncated", "refusal", "broken_functions"})


@pytest.mark.parametrize("name", ANSWERED)
def test_a_follow_up_in_the_same_conversation_is_not_given_the_first_answer_again(name):
    # what a ClaudeSDKClient or a resumed session sends: the whole conversation, then the next
    # question
    s = get(name)
    ws = s.workspace()
    first = s.agent(workspace=ws).run(s.prompt)
    other = s.agent(workspace=ws).run(
        first.messages + [user(text("What is the capital of Japan?"))]
    )
    again = s.agent(workspace=ws).run(first.messages + [user(text(s.prompt))])
    assert (
        other.calls == 1
        and other.text.startswith("This toy model knows only the first request")
        and other.text.endswith(s.prompt)
    )
    assert (first.subtype, again.subtype, again.text) == (SUCCESS, SUCCESS, first.text)


def test_a_follow_up_asking_for_the_answer_in_a_schemas_shape_gets_the_first_answer():
    # langchain's with_structured_output after an agent's run: the conversation, "Give the year as a
    # Year.", the Year tool forced; or output_config.format
    s = get("aurora_run")
    first = s.run()
    messages = first.messages + [user(text("Give the year as a Year."))]
    year = {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]}
    client = local_client(s.api())
    forced = client.messages.create(model=MODEL, max_tokens=256, messages=messages, tool_choice={
        "type": "tool", "name": "Year"}, tools=[{"name": "Year", "description": "A year.",
                                                 "input_schema": year}])
    shaped = client.messages.create(model=MODEL, max_tokens=256, messages=messages, output_config={
        "format": {"type": "json_schema", "schema": year}})
    assert forced.content[0].input == {"year": 1974} and shaped.content[0].text == '{"year": 1974}'


def test_broken_functions_takes_a_later_request_as_feedback_on_its_task():
    s = get("broken_functions")
    ws = s.workspace()
    first = s.agent(workspace=ws).run(s.prompt)
    feedback = s.agent(workspace=ws).run(first.messages + [user(text("Not yet: f2, f3, f4 still "
                                                                     "need fixing."))])
    assert feedback.text.endswith("NG: f3,f4. Stopping here.")


def test_fix_failing_test_follows_the_blog():
    s = get("fix_failing_test")
    ws = s.workspace()
    assert ws.run_python("test_cart.py") == (1, "FAIL test_quantity\nFAIL test_coupon\nPASS "
                                                "test_empty")
    r = s.agent(workspace=ws).run(s.prompt)
    assert (r.subtype, r.calls) == (SUCCESS, 5)
    assert calls_per_turn(r) == [["run_python"], ["read_file", "read_file"], ["edit_file"],
                                 ["run_python"], []]
    assert "price * qty" in ws.read("cart.py") and ws.run_python("test_cart.py")[0] == 0
    assert r.messages[2]["content"][0]["is_error"]  # the first test run fails, as in the log


def test_fix_failing_test_reads_again_when_an_edit_fails():
    s = get("fix_failing_test")
    ws = s.workspace()

    def someone_else_edits(name, input):  # the file changes between the read and the edit
        if name == "edit_file" and "+=  price" not in input["old"]:
            ws.write("cart.py", ws.read("cart.py").replace("+= price\n", "+=  price\n"))

    r = s.agent(workspace=ws, hooks=Hooks(pre_tool=someone_else_edits)).run(s.prompt)
    assert calls_per_turn(r)[2:6] == [["edit_file"], ["read_file"], ["edit_file"], ["run_python"]]
    assert r.messages[6]["content"][0]["is_error"] and r.subtype == SUCCESS and ws.run_python(
        "test_cart.py")[0] == 0


def test_fix_failing_test_reports_a_refused_test_run():
    r = get("fix_failing_test").run(gate=Gate(deny=["run_python"]))
    assert r.subtype == SUCCESS and r.calls == 2 and "not allowed" in r.text


def test_broken_functions_plain_run_fixes_one_function():
    s = get("broken_functions")
    ws = s.workspace()
    assert ws.run_python("check.py") == (1, "NG: f1,f2,f3,f4")
    r = s.agent(workspace=ws).run(s.prompt)
    assert r.subtype == SUCCESS and "NG: f2,f3,f4" in r.text
    assert ws.run_python("check.py") == (1, "NG: f2,f3,f4")


# the Blog's request (§04), worded so the model may stop early: 「1ターンに」, where 「1回に」 once
# fixed everything
BLOG_REQUEST = ("./check.sh が ALL OK を出すようにしたい。直すのは funcs.py の関数で、"
                "1ターンに直すのは1関数だけにして、直したら報告して手を止めてよい。")


def test_in_japanese_broken_functions_sends_the_blog_s_own_request_and_still_stops_after_one_fix():
    with speaking("ja"):
        s = get("broken_functions")
        ws, api = s.workspace(), s.api()
        r = s.agent(workspace=ws, api=api).run(s.prompt)
    assert text_of(api.requests[0].body["messages"][0]) == BLOG_REQUEST.replace(
        "./check.sh", "check.py")
    assert r.subtype == SUCCESS and "NG: f2,f3,f4" in r.text and "手を止めます" in r.text
    assert ws.run_python("check.py") == (1, "NG: f2,f3,f4")


def test_parallel_reads_answer_in_request_order():
    events = list(get("parallel_reads").agent().events(get("parallel_reads").prompt))
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [e.content.splitlines()[0] for e in ends] == ["# Intro", "# Limits", "# Gate"]
    assert events[-1].result.text == "The pages are: Intro, Limits, Gate."


def test_conflicting_edits_the_first_wins():
    s = get("conflicting_edits")
    ws = s.workspace()
    r = s.agent(workspace=ws).run(s.prompt)
    assert [b.get("is_error", False) for b in r.messages[2]["content"]] == [False, True]
    assert ws.read("a.txt") == "x = 2\n" and "x = 2" in r.text


def test_outbox_sends_three_and_a_resume_after_a_crash_sends_twice_without_keys():
    assert get("outbox").run().calls == 4
    plain, keyed = crash_and_resume(keyed=False), crash_and_resume(keyed=True)
    assert [plain.received(to) for to in RECIPIENTS] == [1, 1, 2]
    assert [keyed.received(to) for to in RECIPIENTS] == [1, 1, 1]


def test_large_result_makes_input_tokens_jump():
    s = get("large_result")
    r = s.run()
    n = [u["input_tokens"] for u in r.usages]
    assert r.subtype == SUCCESS and n[1] - n[0] > 10_000 and n[2] - n[1] > 10_000
    small = s.run(api=s.api(**PROMPT_TOO_LONG))
    assert small.subtype == DURING_EXECUTION and "prompt is too long" in small.detail
    full = s.run(api=s.api(**WINDOW_FILLS_UP))
    assert (full.subtype, full.calls) == (CONTEXT_WINDOW, 3)


def test_truncated_needs_a_larger_max_tokens():
    s = get("truncated")
    assert s.run().subtype == MAX_TOKENS
    ws = s.workspace()
    r = s.agent(workspace=ws, max_tokens=4096).run(s.prompt)
    assert r.subtype == SUCCESS and ws.read("report.md").count("## Section") == 150


def test_refusal_and_pause_turn():
    r = get("refusal").run()
    assert r.subtype == REFUSAL and "cyber" in r.detail
    assert get("pause_turn").run().text.startswith("The latest SDK release")


def test_unknown_tool_recovers_from_two_errors():
    r = get("unknown_tool").run()
    assert calls_per_turn(r) == [["open_file"], ["read_file"], ["read_file"], []]
    errors = [b.get("is_error", False) for m in r.messages[2::2] for b in m["content"]]
    assert errors == [True, True, False] and "Buy milk" in r.text


def test_aurora_run_within_two_turns_only():
    assert get("aurora_run").run(limits=Limits(max_turns=1)).text is None
