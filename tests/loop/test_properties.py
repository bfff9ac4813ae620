"""The material's theorems as properties of the real loop, over arbitrary policies, gates and
limits.

Each example scripts a toy model (random turns: texts, 0-3 tool calls, stop reasons), runs the real
Agent through the genuine SDK on the in-process local API, and checks a proposition of the Model.
"""
import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course.api import LocalAPI, Scripted, Turn, tokens
from course.client import MODEL, make_client
from course.events import MAX_BUDGET, MAX_TURNS, ModelCall, ModelResponse
from course.gate import Gate
from course.loop import Agent, Limits, finish
from course.messages import tool_uses, violations
from course.scenarios import call, say
from course.scenarios.coding import edits_policy
from course.tools import Tool, Toolbox, Workspace

PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
words = st.text(string.ascii_lowercase + " ", min_size=1, max_size=30).filter(lambda s: s.strip())
inputs = st.one_of(st.fixed_dictionaries({"q": st.text(string.ascii_lowercase, max_size=6)}),
                   st.just({"q": 5}))  # the second fails the schema
calls = st.lists(st.builds(lambda n, x: call(n, **x), st.sampled_from(["look", "write", "nope"]),
                           inputs), max_size=3)
STOPS = [None, None, "tool_use", "end_turn", "pause_turn", "refusal"]


@st.composite
def turns(draw, always_tool=False):
    uses = draw(calls.filter(bool) if always_tool else calls)
    texts = draw(st.lists(words, min_size=0 if uses else 1, max_size=2))
    stop = None if always_tool else draw(st.sampled_from(STOPS))
    return Turn([{"type": "text", "text": t} for t in texts] + uses, stop)


class World:
    """The environment: a log of the writes that really ran."""

    def __init__(self):
        self.writes = []

    def tools(self):
        schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        return Toolbox([Tool("look", "", schema, lambda q="": f"saw {q}", read_only=True),
                        Tool("write", "", schema,
                             lambda q="": self.writes.append(q) or f"wrote {q}")])


limits = st.builds(Limits, max_turns=st.one_of(st.none(), st.integers(0, 6)),
                   max_budget_usd=st.one_of(st.none(), st.floats(0.0001, 0.01)),
                   max_repeats=st.one_of(st.none(), st.integers(2, 4)),
                   max_tool_errors=st.one_of(st.none(), st.integers(1, 3)))
gates = st.builds(Gate,
                  deny=st.lists(st.sampled_from(["write(a*)", "look(b*)", "write"]), max_size=2),
                  ask=st.lists(st.sampled_from(["write(c*)", "look"]), max_size=1),
                  approver=st.sampled_from([None, lambda n, x: True, lambda n, x: False]))
runs = st.fixed_dictionaries({
    "script": st.lists(turns(), max_size=6), "limits": limits, "gate": gates,
    "max_tokens": st.sampled_from([8, 30, 1024]), "stop_sequences": st.sampled_from([None, ["q"]]),
    "escalate": st.sampled_from([None, lambda reason, h: "carry on"]),
})


def run(case, world):
    api = LocalAPI(Scripted(case["script"], then=say("done")), undeclared_tools=True)
    agent = Agent(make_client(api, max_retries=0), MODEL, world.tools(), limits=case["limits"],
                  gate=case["gate"],
                  max_tokens=case["max_tokens"], stop_sequences=case["stop_sequences"],
                  escalate=case["escalate"])
    events = list(agent.events("start"))
    return finish(iter(events)), events, api


@PROPS
@given(runs)
def test_prop_3_4_the_invariant_holds_at_every_exit(case):
    r, events, api = run(case, World())
    assert violations(r.messages, final_assistant=True) == []
    # every request the loop built was accepted
    assert all(rec.status == 200 for rec in api.requests)
    assert r.calls == len(api.requests) == sum(isinstance(e, ModelCall) for e in events)


@PROPS
@given(runs)
def test_prop_3_5_a_refused_call_is_answered_with_an_error_and_changes_nothing(case):
    world = World()
    r, _, _ = run(case, world)
    ran = []  # the writes answered as done, in order
    for a, b in zip(r.messages, r.messages[1:], strict=False):
        for use, res in zip(tool_uses(a), b["content"], strict=False):
            assert res["tool_use_id"] == use["id"]
            allowed, _ = case["gate"].permits(use["name"], use["input"])
            if not allowed:
                assert res["is_error"] and res["content"].startswith("Permission denied")
            elif use["name"] == "write" and not res.get("is_error"):
                ran.append(use["input"]["q"])
    assert world.writes == ran  # refused writes never reached the world


@PROPS
@given(runs)
def test_thm_4_1_at_most_T_plus_1_calls(case):
    r, _, _ = run(case, World())
    T = case["limits"].max_turns
    if T is not None:
        assert r.turns <= T and r.calls <= T + 1
    assert r.calls <= len(case["script"]) + 1  # the script ends with "done"


@PROPS
@given(st.lists(turns(always_tool=True), min_size=8, max_size=8), st.integers(0, 7))
def test_thm_4_1_an_always_tool_model_makes_exactly_T_plus_1_calls(script, T):
    agent = Agent(make_client(LocalAPI(Scripted(script), undeclared_tools=True), max_retries=0),
                  MODEL, World().tools(), limits=Limits(max_turns=T))
    r = agent.run("start")
    assert (r.subtype, r.calls, r.turns) == (MAX_TURNS, T + 1, T)


@PROPS
@given(runs)
def test_prop_5_2_input_tokens_grow_by_exactly_what_was_appended(case):
    r, events, _ = run(case, World())
    sent = [e.messages for e in events if isinstance(e, ModelCall)]
    answered = [e for e in events if isinstance(e, ModelResponse)]
    n = [
        e.usage["input_tokens"]
        + e.usage["cache_creation_input_tokens"]
        + e.usage["cache_read_input_tokens"]
        for e in answered
    ]
    if not n:
        return
    body = {"messages": sent[0], "tools": World().tools().definitions()}
    s = tokens.REQUEST_OVERHEAD + tokens.fixed_tokens(body) + tokens.message_tokens(sent[0][0])
    assert n[0] == s  # n_1 = s
    for k in range(1, len(n)):
        a, *b = sent[k][len(sent[k - 1]):]  # the response, then its results (none after a pause)
        a_k = (answered[k - 1].usage["output_tokens"] + tokens.MESSAGE_OVERHEAD
               + tokens.BLOCK_OVERHEAD * len(a["content"]))
        assert a == answered[k - 1].message and a_k == tokens.message_tokens(a)
        # n_k = s + sum (a_i + r_i)
        assert n[k] == n[k - 1] + a_k + sum(tokens.message_tokens(m) for m in b)


@PROPS
@given(runs, st.lists(st.integers(0, 5), min_size=1, max_size=10), st.integers(1, 20))
def test_prop_5_4_the_budget_overshoots_by_less_than_one_response(case, costs, B):
    spent = []  # c_1, c_2, ...: what each response cost

    def cost(model, usage):
        spent.append(costs[len(spent) % len(costs)])
        return spent[-1]

    api = LocalAPI(Scripted(case["script"], then=say("done")), undeclared_tools=True)
    r = Agent(make_client(api, max_retries=0), MODEL, World().tools(),
              limits=Limits(max_turns=None, max_budget_usd=B),
              gate=case["gate"], cost=cost).run("start")
    total = sum(spent)
    # every call was made with the spend still under B
    assert r.cost_usd == total and sum(spent[:-1]) < B
    assert total < B + max(costs)  # whatever the exit
    if r.subtype == MAX_BUDGET:
        assert B <= total < B + spent[-1]


files = st.dictionaries(st.sampled_from(["a.txt", "b.txt", "docs/c.md"]), words, min_size=1)
reads = st.lists(st.one_of(st.builds(lambda p: call("read_file", path=p),
                                     st.sampled_from(["a.txt", "b.txt", "docs/c.md", "../x"])),
                           st.builds(lambda p: call("list_files", path=p),
                                     st.sampled_from([".", "docs"]))),
                 min_size=1, max_size=5)


@PROPS
@given(files, reads, st.randoms(use_true_random=False))
def test_prop_6_2_read_only_results_do_not_depend_on_the_order(content, uses, rnd):
    def results(order):
        ws = Workspace(content)
        script = [say(*order), say("done")]
        r = Agent(make_client(LocalAPI(Scripted(script), undeclared_tools=True), max_retries=0),
                  MODEL, ws.toolbox(run=False)).run("read")
        got = {}
        for u, res in zip(tool_uses(r.messages[1]), r.messages[2]["content"], strict=True):
            got.setdefault(json.dumps([u["name"], u["input"]], sort_keys=True), set()).add(
                (res["content"], res.get("is_error", False)))
        assert ws.files == content  # reads leave the environment as it was
        return got

    shuffled = list(uses)
    rnd.shuffle(shuffled)
    one_by_one = Workspace(content).toolbox(run=False)  # sequential, without the loop
    expected = {}
    for u in uses:
        expected.setdefault(json.dumps([u["name"], u["input"]], sort_keys=True), set()).add(
            one_by_one.run(u["name"], u["input"]))
    assert results(uses) == results(shuffled) == expected


@PROPS
@given(st.integers(2, 9), st.integers(2, 9))
def test_example_6_3_two_edits_do_not_commute(v, w):
    def final(order):
        ws = Workspace({"a.txt": "x = 1\n"})
        Agent(make_client(LocalAPI(edits_policy(order))), MODEL, ws.toolbox(run=False)).run("edit")
        return ws.read("a.txt")

    assert final((str(v), str(w))) == f"x = {v}\n"
    assert final((str(w), str(v))) == f"x = {w}\n"
