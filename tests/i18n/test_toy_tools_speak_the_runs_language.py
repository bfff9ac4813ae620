"""The toy tools answer in the run's language (issue 29 item 1): the search pages, the workspace's
answers and errors, the toolbox's errors, the gate's and a hook's refusals, the outbox; with the
same facts (names, years) in every language. The toy models recognise those answers by what they
are, whatever language the tools spoke; and in the grader, whose server answers in threads of its
own, the tools and the model speak the submission's language."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from course.gate import Gate
from course.i18n import speaking
from course.loop import Hooks, Limits
from course.scenarios import get
from course.scenarios.search import search
from course.tools import Workspace
from course.tools.outbox import Outbox

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "grading"))
from english_phrases import english_phrases  # noqa: E402
from test_grading_hostile import unix_post  # noqa: E402


def tool_answers() -> list[str]:
    """What the toy tools say, one of each kind."""
    ws = Workspace({"a.txt": "x = 1\n", "src/m.py": ""})
    box = ws.toolbox()
    box.add(Outbox().tools().tools["send_email"])
    outbox = Outbox()
    outbox.send("ann@example.com", "s", "b", "k")
    return [search("Aurora Run"), search("Mara Voss"), search("Henrik Dahl"),
            search("nothing at all"), box.run("write_file", {"path": "b.txt", "content": "hi"})[0],
            box.run("edit_file", {"path": "a.txt", "old": "x = 1", "new": "x = 2"})[0],
            box.run("edit_file", {"path": "a.txt", "old": "y = 9", "new": "y = 1"})[0],
            box.run("read_file", {"path": "todo.txt"})[0], box.run("read_file", {"path": "src"})[0],
            box.run("read_file", {"path": "/etc/passwd"})[0], box.run("read_file", {})[0],
            box.run("write_file", {"path": "c.txt", "content": 3})[0],
            box.run("open_file", {"path": "a.txt"})[0], box.run("list_files", {"path": "docs"})[0],
            outbox.send("ann@example.com", "s", "b", "k"), outbox.send("bob@example.com", "s", "b"),
            Gate(deny=["write_file(/etc/*)"]).permits("write_file", {"path": "/etc/x"})[1],
            Gate(ask=["run_python"]).permits("run_python", {"path": "t.py"})[1],
            Gate(ask=["run_python"], approver=lambda *_: False).permits(
                "run_python", {"path": "t.py"})[1],
            Gate(default="deny").permits("search", {})[1],
            *[t["description"] for t in box.definitions()]]


def test_the_toy_tools_answer_in_japanese_with_the_same_facts():
    with speaking("ja"):
        japanese = tool_answers()
    english = tool_answers()
    assert [p for text in japanese for p in english_phrases(text)] == []
    assert japanese != english and len(japanese) == len(english)
    # the pages: the same names and years
    for ja, en in zip(japanese[:4], english[:4], strict=True):
        for fact in ("Aurora Run", "Mara Voss", "Henrik Dahl", "1951", "1974", "1998", "2011"):
            assert (fact in ja) == (fact in en), (fact, ja)


def test_english_answers_are_as_they_were():
    assert search("Aurora Run") == ("Aurora Run: Aurora Run is a 1998 novel by Henrik Dahl (born "
                                    "1951). It was adapted into a 2011 film directed by Mara Voss.")
    assert search("nothing at all") == "No matching page found."
    assert Gate(deny=["write_file(/etc/*)"]).permits("write_file", {"path": "/etc/x"})[1] == \
        "Permission denied by rule deny write_file(/etc/*)"


def results(run) -> list[tuple[str, bool]]:
    return [(b["content"], bool(b.get("is_error"))) for m in run.messages if m["role"] == "user"
            and isinstance(m["content"], list) for b in m["content"]
            if b.get("type") == "tool_result"]


@pytest.mark.parametrize("tools_lang, model_lang", [("ja", "ja"), ("ja", "en"), ("en", "ja")])
def test_the_toy_models_read_a_refusal_in_either_language(tools_lang, model_lang):
    """The gate's and a hook's refusals, and a page not found, end the run as they do in English."""
    def in_language(policy):
        def answer(c):
            with speaking(model_lang):
                return policy(c)
        return answer

    with speaking(tools_lang):
        s = get("fix_failing_test")
        gated = s.run(api=s.api(policy=in_language(s.policy)), gate=Gate(deny=["edit_file"]))
        hooked = s.run(api=s.api(policy=in_language(s.policy)),
                       hooks=Hooks(pre_tool=lambda name, input: "frozen"))
        lost = get("aurora_run")
        nothing = lost.run(api=lost.api(policy=in_language(lost.policy)),
                           limits=Limits(max_turns=5), tools=search_nothing())
    # refused, then reported at once: no retry (the edit after the tests and reads; the first call
    # of all)
    assert (gated.subtype, len(gated.messages), hooked.subtype, len(hooked.messages)) == (
        "success",
        8,
        "success",
        4,
    )
    assert results(gated)[-1][1] is results(hooked)[-1][1] is True
    # two searches, then "could not find"
    assert nothing.subtype == "success" and len(nothing.messages) == 6


def search_nothing():
    from course.scenarios.search import search_tools
    box = search_tools()
    box.tools["search"].fn = lambda query: search("nothing at all")
    return box


def test_the_graders_server_threads_speak_the_submissions_language(tmp_path, monkeypatch):
    """The grader's process speaks English; a Japanese submission's call gets Japanese tools and
    model."""
    from course.contract.call import Call
    from course.grading.classroom.sandbox.wire import Wire

    monkeypatch.setenv("COURSE_LANG", "en")
    with Wire(tmp_path / "api.sock", 4) as wire:
        with speaking("ja"):
            token = wire.router.open(Call(get("aurora_run"), (), {}))
        status, tool = unix_post(
            tmp_path / "api.sock",
            f"/call/{token}/tool",
            json.dumps({"name": "search", "input": {"query": "nothing"}}).encode(),
        )
        body = {"model": "claude-haiku-4-5", "max_tokens": 100,
                "tools": get("aurora_run").tools().definitions(), "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search",
                                               "input": {"query": "Aurora Run"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                          "content": search("Aurora Run")}]}]}
        status2, reply = unix_post(tmp_path / "api.sock", f"/call/{token}/v1/messages",
                                   json.dumps(body).encode())
    assert status == status2 == 200
    assert json.loads(tool)["content"] == "一致するページは見つかりませんでした。"
    assert "映画の監督は Mara Voss です" in json.loads(reply)["content"][0]["text"]
