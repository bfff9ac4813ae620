"""The loop explorer, driven from Python without a front end."""
import re
import threading
import time
from dataclasses import replace

import pytest

from course.loop import Limits
from course.messages import blocks
from course.scenarios import SCENARIOS
from course.viz import MessageList
from course.viz import explorer as widgets
from course.viz.explorer import QUIET_S, Explorer, RunAhead, Setting, deny_rules


@pytest.fixture
def runs(monkeypatch):
    """Every setting the explorer runs, in order."""
    seen = []
    real = widgets.run_frames

    def counting(setting, student=None, pause=None):
        seen.append(setting)
        return real(setting, student, pause)

    monkeypatch.setattr(widgets, "run_frames", counting)
    return seen


def test_max_turns_changes_the_outcome_on_aurora_run():
    e = Explorer("aurora_run", max_turns=10)
    assert e.outcome == "success" and e.frames[-1].answer == "1974"
    e.max_turns.value = 1
    assert e.outcome == "error_max_turns" and e.frames[-1].answer is None
    assert ">error_max_turns</span>" in e.outcome_label.value
    # the view jumped to the last frame
    assert ">error_max_turns</span></span> answer: None" in e.view.value


def test_calls_are_t_plus_one_for_the_always_tool_model():
    e = Explorer("always_tool")
    for T in (0, 1, 5):
        e.set(max_turns=T)
        last = e.frames[-1]
        assert (last.outcome, last.calls, last.turns) == ("error_max_turns", T + 1, T)


def test_denying_the_tool_gives_error_results_not_a_stop():
    e = Explorer("aurora_run", deny=["search"])
    results = [b for m in e.frames[-1].messages for b in blocks(m) if b["type"] == "tool_result"]
    assert results and all(b.get("is_error") for b in results)
    assert e.setting.deny == ("search",)
    e.set(deny=[])
    assert e.frames[-1].answer == "1974"


def test_a_budget_stops_the_run_after_the_response_that_crosses_it():
    e = Explorer("always_tool", max_turns=10, max_budget_usd=0.0003)
    last = e.frames[-1]
    assert last.outcome == "error_max_budget_usd"
    # overshoot < one response (Prop. 5.4)
    assert 0.0003 <= last.spent < 0.0003 + (last.spent - e.frames[-3].spent)
    assert e.set(max_budget_usd=None).setting.max_budget_usd is None


def test_the_scenario_list_and_the_rules_follow_the_scenarios():
    e = Explorer()
    assert [value for _, value in e.scenario.options] == list(SCENARIOS)
    assert [b.description for b in e.rules.children] == deny_rules("aurora_run") == ["search"]
    e.rules.children[0].value = True
    e.set(scenario="one_shot")
    assert not any(b.value for b in e.rules.children)  # a new scenario starts with nothing denied
    assert e.outcome == "success" and e.frames[-1].calls == 1


def test_stepping_redraws_without_running_again(runs):
    e = Explorer("aurora_run")
    assert runs == [Setting("aurora_run", 10, None)]
    views = set()
    for step in range(len(e.frames)):
        e.step.value = step
        views.add(e.view.value)
        assert f"step {step} / {len(e.frames) - 1}:" in e.view.value
    assert len(views) == len(e.frames)
    e.set(max_turns=1)
    e.set(max_turns=10)  # back to a setting already run
    assert runs == [Setting("aurora_run", 10, None), Setting("aurora_run", 1, None)]


def test_static_output_without_a_front_end():
    e = Explorer("aurora_run", max_turns=1)
    bundle = e._repr_mimebundle_()
    assert bundle["text/plain"] == ("Explorer(scenario='aurora_run', max_turns=1, "
                                    "max_budget_usd=None, deny=[]): error_max_turns after 2 calls, "
                                    "1 turn; step 4/4")
    # the live widget, where a front end is
    assert "application/vnd.jupyter.widget-view+json" in bundle
    html = bundle["text/html"]
    assert "scenario aurora_run · max_turns 1" in html and ">error_max_turns</span>" in html
    again = Explorer("aurora_run", max_turns=1)._repr_mimebundle_()
    # no ids, no addresses
    assert (again["text/plain"], again["text/html"]) == (bundle["text/plain"], html)
    assert not re.search(r"0x[0-9a-f]{6,}|model_id|[0-9a-f]{32}", html + bundle["text/plain"])


def test_a_scenarios_own_gate_rule_starts_on_and_can_be_turned_off():
    e = Explorer("gated_write")
    assert e.setting.deny == ("write_file(/etc/*)",)
    refused = [b["content"] for m in e.frames[-1].messages for b in blocks(m) if b.get("is_error")]
    assert refused == ["Permission denied by rule deny write_file(/etc/*)"]
    e.set(deny=[])
    refused = [b["content"] for m in e.frames[-1].messages for b in blocks(m) if b.get("is_error")]
    # now the workspace itself refuses the path
    assert len(refused) == 1 and "deny" not in refused[0]


def test_the_budget_slider_fits_the_scenario():
    e = Explorer("aurora_run")
    cost = e.frames[-1].spent
    assert cost <= e.budget.max <= 5 * cost and e.budget.value == 0  # 0: no limit
    e.set(max_budget_usd=cost / 2)
    assert e.outcome == "error_max_budget_usd"
    e.set("large_result")
    assert e.budget.max >= e.frames[-1].spent > cost and e.setting.max_budget_usd is None


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_scenario_steps_through_valid_histories(name):
    e = Explorer(name, max_turns=1)
    for frame in e.frames:
        # (a paused turn goes back as is)
        assert MessageList(frame.messages, final_assistant=True).holds, frame.step
    assert e.frames[-1].outcome is not None and e.frames[-1].calls <= 2  # T+1
    e.set(step=1)
    assert "step 1 / " in e.view.value and e.step.value == 1


def test_the_benchmark_measures_re_runs_and_steps(runs):
    from bench.explorer import bench_scenario

    figures = bench_scenario("one_shot", repeats=1)
    assert set(figures) == {"rerun_median_ms", "rerun_max_ms", "revisit_median_ms",
                            "step_median_ms", "step_max_ms"}
    assert all(v > 0 for v in figures.values())
    # the first run, every setting of both repetitions, 3 kept for revisits
    assert len(runs) == 1 + 2 * 4 + 3


def test_counts_are_grammatical_and_dollars_read_as_dollars():
    from course.viz.style import dollars, tokens

    e = Explorer("one_shot")
    assert "after 1 call, 0 turns" in e.outcome_label.value and "after 1 call, 0 turns" in repr(e)
    assert [dollars(x) for x in (0, 1e-05, 7.9e-05, 0.0003, 1.5)] == [
        "$0",
        "$0.00001",
        "$0.000079",
        "$0.0003",
        "$1.50",
    ]
    assert tokens(140000) == "140,000"
    e.set(max_budget_usd=0.0003)
    assert (
        "budget: $0.0000" in e.view.value
        and "/ $0.0003" in e.view.value
        and "e-0" not in e.view.value
    )


def test_the_header_and_the_frame_name_the_same_run_while_stepping():
    e = Explorer("aurora_run")
    e.set(step=2)
    assert (
        "outcome of the run: " in e.outcome_label.value
        and ">success</span>" in e.outcome_label.value
    )
    assert (
        "outcome at this step: " in e.view.value
        and ">running</span> after 1 call so far" in e.view.value
    )


def test_playback_buttons_move_the_step_and_stop_at_the_ends():
    e = Explorer("aurora_run")
    last = e.step.value
    assert all(b.description and b.tooltip for b in (e.first, e.back, e.playing, e.next, e.last))
    e.first.click()
    assert e.step.value == 0
    e.back.click()
    assert e.step.value == 0  # no step before the first
    e.next.click()
    assert e.step.value == 1 and "step 1 / " in e.view.value
    e.last.click()
    e.next.click()
    assert e.step.value == last


def test_the_snapshot_says_how_to_get_the_controls_and_names_the_outcome_once():
    html = Explorer("aurora_run").html()
    assert "run this cell to get the controls" in html
    assert html.count("outcome at this step") == 1 and "outcome of the run" not in html


def test_moving_a_control_runs_the_other_max_turns_ahead(runs):
    e = Explorer("always_tool", max_turns=3)
    e.max_turns.value = 4  # as the slider does: an update, then runs ahead
    e.runs.join()
    assert {s.max_turns for s in runs} == set(range(0, 16))
    assert len(runs) == len(set(runs))  # each setting ran once
    e.set(max_turns=2)
    assert len(runs) == 16 and e.frames[-1].calls == 3


def test_a_run_ahead_waits_while_the_controls_move():
    made = []

    def run(setting, pause=None):
        if pause is not None:
            pause()  # as before each model call
        made.append((setting, "ahead" if pause else "now", time.monotonic()))
        return [setting]

    runs = RunAhead(run)
    runs.moving()
    runs.want(["a", "b"])
    moved = time.monotonic()
    while time.monotonic() - moved < 3 * QUIET_S:  # a learner pressing keys
        runs.moving()
        # the quiet time counts from the last key, not from the end of this loop
        last_move = time.monotonic()
        time.sleep(QUIET_S / 10)
    assert made == []  # nothing made while the controls moved
    # asked for before its run ahead began: run now, in the foreground
    assert runs.frames("b") == ["b"]
    runs.join()
    assert [(s, how) for s, how, _ in made] == [("b", "now"), ("a", "ahead")]
    assert made[1][2] >= last_move + QUIET_S * 0.9  # ahead only once the controls were still


def test_the_foreground_waits_for_a_run_ahead_under_way_without_its_pauses():
    started = threading.Event()

    def run(setting, pause=None):
        started.set()
        for _ in range(3):
            time.sleep(0.01)
            pause()
        return [setting]

    runs = RunAhead(run)
    runs.want(["a"])
    started.wait(5)
    runs.moving()  # would hold the run back for QUIET_S at each pause
    began = time.monotonic()
    assert runs.frames("a") == ["a"] and time.monotonic() - began < QUIET_S


def test_a_screen_reader_hears_the_new_outcome_once_then_each_step():
    e = Explorer("aurora_run")
    e.max_turns.value = 1  # as the slider does
    assert e.access.announce == ("outcome of the run: error_max_turns after 2 calls, 1 turn. step "
                                 "4 / 4: error_max_turns: after turn 1 the model still asks for "
                                 "tools; max_turns=1")
    e.step.value = 0
    assert e.access.announce == "step 0 / 4: the prompt is sent"
    e.runs.join()


def test_the_step_slider_gets_its_new_range_before_its_new_value(monkeypatch):
    """A front-end slider given a value past its old range clamps it and sends that back (issue 30
    item 1)."""
    e = Explorer("always_tool", max_turns=1)
    sent = []
    monkeypatch.setattr(e.step, "_send", lambda msg, buffers=None: sent.append(set(msg["state"])))
    e.max_turns.value = 4
    assert sent == [{"max"}, {"value"}], sent


def test_an_amount_keeps_two_significant_digits_and_one_message_is_singular():
    """Issue 30 item 6: always_tool at T = 3 spent $0.0001044, shown as "$0.0001" (one digit); "(1
    messages)"."""
    from course.viz.style import dollars

    assert [dollars(x) for x in (0.0001044, 0.0005, 0.00010)] == ["$0.00010", "$0.0005", "$0.0001"]
    assert "budget: $0.00010 " in Explorer("always_tool", max_turns=3).view.value
    one = MessageList([{"role": "user", "content": "hi"}])
    assert "holds (1 message)" in one._repr_html_() and repr(one).startswith(
        "MessageList: 1 message, ")


def test_a_frame_is_sent_with_classes_and_its_stylesheet_once(monkeypatch):
    """Issue 30 item 8: no inline style in the live frame (it tripled its size); every class it uses
    is in the sheet."""
    from course.viz.run import frame_html
    from course.viz.style import stylesheet

    e = Explorer("always_tool")
    frame = e.view.value
    assert "style=" not in frame and "style=" not in e.outcome_label.value
    assert len(frame) * 2 < len(frame_html(e.frame, e.setting.limits, e.step.value, len(e.frames)))
    used = set(re.findall(r"\bcs-[0-9a-f]{8}\b", frame + e.outcome_label.value))
    assert used and used <= set(e.access.known) and e.access.styles == stylesheet(e.access.known)
    sent = []
    monkeypatch.setattr(widgets.Access, "send_state", lambda self, key=None: sent.append(key))
    for step in range(e.step.max, -1, -1):
        e.go(step)
    # the frames before the last have styles of their own (a meter's share, "running")
    assert "styles" in sent
    sent.clear()
    e.go(2)
    e.go(1)
    assert sent == ["announce", "announce"]  # each style is sent once


def test_a_step_key_sends_the_frame_and_its_announcement_only(monkeypatch):
    """Issue 30 item 8: one message for the view, one for the screen reader; the play timer hears of
    it on play."""
    import ipywidgets

    e = Explorer("always_tool")
    e.go(3)  # its styles are sent
    e.go(e.step.max)
    sent = []
    record = lambda self, key=None: sent.append(  # noqa: E731
        (type(self).__name__, key if isinstance(key, str) else {*key})
    )
    monkeypatch.setattr(ipywidgets.Widget, "send_state", record)
    e.go(3)
    assert sent == [("IntSlider", "value"), ("HTML", "value"), ("Access", "announce")], sent
    sent.clear()
    e.playing.value = True  # the timer starts from the step shown, in one message
    assert ("Play", {"value", "playing"}) in sent, sent
    assert e.play.value == 3 and e.play.playing
    e.play.playing = False  # the timer stopped at the end: the button shows it
    assert not e.playing.value


def on_a_page(e: Explorer) -> list[dict]:
    """`e` shown on a page that has asked for its runs: the runs it is sent, in order."""
    sent: list[dict] = []
    e.access.send = lambda content, buffers=None: sent.append(content) if "run" in content else None
    e.on_page({"ready": True})
    return sent


def test_a_page_gets_every_run_once_with_the_message_lists_they_share():
    """Issue 30 item 8: the page switches frames itself; each run reaches it once, each message list
    once."""
    from course.viz.run import frame_html
    from course.viz.style import classed

    e = Explorer("always_tool", max_turns=3)
    sent = on_a_page(e)
    assert [m["run"] for m in sent] == [e.setting.key]  # the run on screen, at once
    e.max_turns.value = 4  # as the slider does: this run, then the others ahead, each as it is made
    e.runs.join()
    runs = {m["run"]: m for m in sent}
    assert len(sent) == len(runs) == 16 and set(runs) == {
        replace(e.setting, max_turns=t).key for t in range(16)
    }
    lists = {}
    for m in sent:
        assert not set(m["pieces"]) & set(lists)  # a list is sent once
        lists |= {int(k): v for k, v in m["pieces"].items()}
    frames = [frame for m in sent for frame in m["frames"]]
    assert len(lists) * 4 < len(frames)  # the runs share their histories
    run = e.runs.kept[replace(e.setting, max_turns=2)]
    page = runs[replace(e.setting, max_turns=2).key]
    for step, (head, rest) in enumerate(page["frames"]):  # the page draws what the kernel would
        assert head + lists[rest] == classed(frame_html(run[step], Limits(max_turns=2), step,
                                                        len(run)), {})
    assert page["said"][0] == "step 0 / 6: the prompt is sent"
    assert page["first"].startswith("outcome of the run: error_max_turns after 3 calls, 2 turns. "
                                    "step 6 / 6: ")
    assert "error_max_turns" in page["outcome"] and "style=" not in page["outcome"]


def test_with_a_page_a_step_or_a_run_it_has_asks_nothing_more_of_the_kernel(monkeypatch):
    """Issue 30 item 8: the page shows steps and runs it has; the kernel sends only a run it lacks
    (and the styles of its frames), and draws nothing: no frame, outcome, announcement or step
    slider of its own."""
    import ipywidgets

    e = Explorer("always_tool", max_turns=3)
    sent = on_a_page(e)
    states = []
    record = lambda self, key=None: states.append((type(self).__name__, key))  # noqa: E731
    monkeypatch.setattr(ipywidgets.Widget, "send_state", record)
    e.step.set_state({"value": 2})  # as a message from the page sets it
    assert states == [] and len(sent) == 1
    e.max_turns.set_state({"value": 5})  # a run the page lacks
    assert [m["run"] for m in sent[1:]] == [e.setting.key]
    assert set(states) <= {("Access", "styles")}, states
    # the page moves the step slider to the new run's last step
    assert e.step.value == 2 and e.step.max == 8
    e.runs.join()
    states.clear()
    sent.clear()
    e.max_turns.set_state({"value": 7})  # run ahead, and sent as it was made
    assert states == [] and sent == []


def test_runs_ahead_speak_the_learners_language():
    from course.i18n import speaking, tr

    with speaking("ja"):
        e = Explorer("always_tool", max_turns=3)
        e.max_turns.value = 4
        e.runs.join()
        prompt = tr("the prompt is sent")
    assert prompt != "the prompt is sent"
    # made on the run-ahead thread
    assert e.runs.kept[replace(e.setting, max_turns=9)][0].step == prompt


def test_the_page_hears_the_setting_after_its_runs_and_when_a_control_moved_to_no_effect():
    """A page says "running" once the scenario, the budget or a deny rule moves, until the kernel
    names the setting: named after the runs of the new setting, and also when nothing changed."""
    e = Explorer("always_tool", max_turns=3)
    sent: list[dict] = []
    e.access.send = lambda content, buffers=None: sent.append(content)
    e.on_page({"ready": True})
    sent.clear()
    e.scenario.value = "one_shot"
    assert [m.get("run", m.get("base")) for m in sent] == [e.setting.key, e.setting.base]
    assert e.access.base == e.setting.base and e.access.settings == [
        e.scenario,
        e.budget,
        *e.rules.children,
    ]
    sent.clear()
    e.set(max_budget_usd=None)  # no change: the page is told all the same
    assert sent == [{"base": e.setting.base}]
    e.runs.join()
