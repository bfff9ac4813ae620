"""Policies (scripted, rules, replay of a recorded transcript) and the recorder."""
from __future__ import annotations

import json

import anthropic
import pytest

from course.api import LocalAPI, Replay, Rules, Scripted, Turn
from course.client import MODEL, make_client
from course.i18n import speaking
from course.messages import assistant, text, tool_result, tool_use, user
from course.scenarios import get
from course.scenarios.record import TRANSCRIPTS, record_scenario, save, transcript, transcript_path

AURORA = TRANSCRIPTS / "aurora_run.jsonl"


SEARCH = {"name": "search",
          "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}


def create(client, messages, **options):
    return client.messages.create(model=MODEL, max_tokens=256, messages=messages,
                                  **{"tools": [SEARCH], **options})


def test_scripted_answers_call_k_with_turn_k_then_repeats():
    client = make_client(Scripted([Turn([text("first")]), Turn([text("second")])],
                                  then=Turn([text("again")])))
    history = [user("go")]
    said = []
    for _ in range(4):
        said.append(create(client, history).content[0].text)
        history += [assistant(said[-1]), user("more")]
    assert said == ["first", "second", "again", "again"]


def test_scripted_without_then_runs_out_with_a_400():
    client = make_client(Scripted([Turn([text("only")])]))
    with pytest.raises(anthropic.BadRequestError, match="only 1 turns; this is call 2"):
        create(client, [user("go"), assistant("only"), user("more")])


def test_rules_first_match_decides():
    rules = Rules([(lambda c: "France" in c.prompt, lambda c: Turn([text("Paris")])),
                   (lambda c: True, lambda c: Turn([text("no idea")]))])
    client = make_client(rules)
    assert create(client, [user("Capital of France?")]).content[0].text == "Paris"
    assert create(client, [user("Capital of Mars?")]).content[0].text == "no idea"


def test_rules_without_a_match_is_a_400():
    client = make_client(Rules([(lambda c: False, lambda c: Turn([text("never")]))]))
    with pytest.raises(anthropic.BadRequestError, match="no rule of the policy matches"):
        create(client, [user("hi")])


def test_recorded_aurora_run_is_three_calls_ending_in_1974():
    steps = Replay.load(AURORA).steps
    assert [s["response"]["stop_reason"] for s in steps] == ["tool_use", "tool_use", "end_turn"]
    assert steps[-1]["response"]["content"] == [text("1974")]
    assert Replay.load(AURORA).steps == steps  # a name or a path


def test_replay_runs_the_reference_loop_to_1974():
    scenario = get("aurora_run")
    api = LocalAPI(Replay.load(AURORA))
    result = scenario.run(api=api)
    assert (result.subtype, result.text, result.calls) == ("success", "1974", 3)


def test_replay_reports_where_a_conversation_diverged():
    first = Replay.load(AURORA).steps[0]["response"]["content"][0]
    client = make_client(Replay.load(AURORA), max_retries=0)
    request = json.loads(AURORA.read_text().splitlines()[0])["request"]
    wrong = [user(request["messages"][0]["content"][0]["text"]), assistant(first),
             # a different search result
             user(tool_result(first["id"], "Aurora Run: a 1951 film."))]
    with pytest.raises(anthropic.BadRequestError) as info:
        create(client, wrong, tools=request["tools"])
    message = info.value.body["error"]["message"]
    assert message.startswith("replay diverged at call 2, messages.2: recorded ")
    assert "a 1951 film" in message


def test_replay_reports_a_call_beyond_the_recording():
    steps = Replay.load(AURORA).steps
    last = steps[-1]
    messages = last["request"]["messages"] + [assistant(*last["response"]["content"]),
                                              user("And the novelist?")]
    with pytest.raises(anthropic.BadRequestError,
                       match="the recording has 3 calls; this is call 4"):
        create(make_client(Replay(steps), max_retries=0), messages)


def test_replay_reports_a_different_number_of_messages():
    steps = Replay.load(AURORA).steps
    sent = steps[1]["request"]["messages"] + [user("Please hurry.")]
    with pytest.raises(anthropic.BadRequestError,
                       match="replay diverged at call 2: recorded 3 messages, sent 4"):
        create(make_client(Replay(steps), max_retries=0), sent)


def test_the_recorder_keeps_only_answered_calls(tmp_path):
    api = LocalAPI(Scripted([Turn([tool_use("", "search", {"q": "x"})]), Turn([text("done")])]))
    client = make_client(api, max_retries=0)
    api.inject("rate_limit", retry_after=0.01)
    with pytest.raises(anthropic.RateLimitError):
        create(client, [user("go")])
    first = create(client, [user("go")])
    create(client, [user("go"), assistant(*[b.model_dump() for b in first.content]),
                    user(tool_result(first.content[0].id, "found"))])
    steps = transcript(api)
    assert [s["response"]["stop_reason"] for s in steps] == ["tool_use", "end_turn"]
    path = save(api, tmp_path / "t.jsonl")
    assert Replay.load(path).steps == steps


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_each_edition_s_shipped_transcript_is_what_the_scenario_records_now_in_its_language(
    lang, tmp_path):
    with speaking(lang):
        fresh = record_scenario("aurora_run", tmp_path / "aurora_run.jsonl")
        assert transcript_path("aurora_run") == (AURORA if lang == "en"
                                                 else TRANSCRIPTS / "ja" / "aurora_run.jsonl")
    assert fresh.read_text() == transcript_path("aurora_run", lang).read_text(), (
        f"re-record with: COURSE_LANG={lang} python -m course record aurora_run")


def test_the_editions_wires_differ_and_each_replays_only_in_its_own_language():
    en, ja = (Replay.load(transcript_path("aurora_run", lang)).steps for lang in ("en", "ja"))
    assert [s["response"]["stop_reason"] for s in ja] == [s["response"]["stop_reason"] for s in en]
    assert (
        ja[-1]["response"]["content"]
        == en[-1]["response"]["content"]
        == [{"type": "text", "text": "1974"}]
    )
    # the prompt speaks the edition's language
    assert ja[0]["request"]["messages"] != en[0]["request"]["messages"]
    for lang, steps in (("en", en), ("ja", ja)):
        with speaking(lang):
            assert get("aurora_run").run(api=LocalAPI(Replay(steps))).text == "1974"
    with speaking("ja"):  # the Japanese edition against the English recording: it leaves it at once
        wrong = get("aurora_run").run(api=LocalAPI(Replay(en)))
    assert (
        wrong.subtype == "error_during_execution"
        and "1 回目の呼び出しの messages.0" in wrong.detail
    )


def test_a_policy_must_return_a_turn():
    api = LocalAPI(lambda conversation: "1974")
    with pytest.raises(anthropic.InternalServerError,
                       match="policy failed: TypeError: a policy must return a Turn, not str"):
        create(make_client(api), [user("When?")])
    # x-should-retry: false, so the SDK did not retry
    assert [r.status for r in api.requests] == [500]
