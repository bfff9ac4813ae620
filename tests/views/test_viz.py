"""The message-list view, run frames and plots."""
import io
import re

import pytest
from matplotlib.collections import PolyCollection
from matplotlib.image import imread
from matplotlib.text import Text

from course.context import inputs_per_call
from course.events import ToolEnd
from course.loop import Limits
from course.messages import assistant, tool_result, tool_use, user
from course.scenarios import SCENARIOS
from course.viz import RULES, MessageList, frame_html, frames
from course.viz.plots import DescribedFigure, budget_spend, token_growth, tool_timeline
from course.viz.style import PALETTE

GOOD = [
    user("What is 2+2? Use the tool."),
    assistant("Adding.", tool_use("tu_a", "add", {"x": 2, "y": 2}),
              tool_use("tu_b", "log", {"msg": "2+2"})),
    user(tool_result("tu_a", "4"), tool_result("tu_b", "disk full", is_error=True)),
    assistant("4"),
]

# Histories that each break one rule of P1-P3, and the rule.
BAD = {
    "P1": [assistant("hello"), user("hi")],
    "P2": [user("q"), assistant(tool_use("tu_a", "add", {}), tool_use("tu_b", "add", {})),
           user(tool_result("tu_b", "5"), tool_result("tu_a", "4"))],  # answered in the wrong order
    "P3": [user("q"), assistant(tool_use("tu_a", "add", {})),
           user(tool_result("tu_a", "4"), tool_result("tu_z", "?"))],
}


def run_frames(scenario: str, **limits):
    sc = SCENARIOS[scenario]
    return frames(sc.agent(limits=Limits(**limits)).events(sc.prompt))


@pytest.mark.parametrize("rule", sorted(BAD))
def test_html_names_the_broken_rule(rule):
    html = MessageList(BAD[rule])._repr_html_()
    assert "pairing invariant broken" in html
    assert f"<b>{rule}</b> ({RULES[rule]}) broken" in html
    assert [r for r in RULES if f"<b>{r}</b>" in html] == [rule]  # only the rule that is broken
    assert f"✗ {rule} broken" in html  # and the offending message is marked
    assert rule in repr(MessageList(BAD[rule])).splitlines()[0]


def test_a_good_history_holds():
    view = MessageList(GOOD, final_assistant=True)
    assert view.holds
    assert "P1–P3 holds" in view._repr_html_() and "✗" not in view._repr_html_()
    assert repr(view).splitlines()[0] == "MessageList: 4 messages, P1-P3 hold"


def test_tool_use_and_result_share_a_colour_and_a_number():
    view = MessageList(GOOD, final_assistant=True)
    html = view._repr_html_()
    first, second = PALETTE[0], PALETTE[1]
    assert html.count(f"border-left:6px solid {first}") == 2  # tu_a's tool_use and its tool_result
    assert html.count(f"border-left:6px solid {second}") == 2  # tu_b's
    lines = repr(view).splitlines()
    assert any("tool_use #1 add" in line and "id=tu_a" in line for line in lines)
    assert any("tool_result #1 " in line and "for id=tu_a" in line for line in lines)
    assert any("tool_result #2 is_error" in line and "for id=tu_b" in line for line in lines)


def test_is_error_is_marked_only_on_error_results():
    html = MessageList(GOOD, final_assistant=True)._repr_html_()
    assert html.count(">is_error</span>") == 1
    assert re.search(r"answers log <span[^>]*>is_error</span>", html)


def test_labels_read_as_separate_words():
    """As a screen reader reads the view: a line per block, the inline markup removed (not
    "#1tool_useadd")."""
    pending = assistant(tool_use("tu_c", "add", {"x": 1}))
    html = MessageList(GOOD, final_assistant=True, pending=pending)._repr_html_()
    lines = re.sub(r"<[^>]+>", "", re.sub(r"</?div[^>]*>", "\n", html)).split("\n")
    for words in ("text Adding.", "#1 tool_use add id=tu_a",
                  "#2 tool_result answers log is_error id=tu_b",
                  "assistant response received; its tools have not run"):
        assert words in lines, words


def test_tool_input_keeps_its_whitespace_and_results_start_on_their_own_line():
    old = "        return total\n"
    result = "def f():\n    return 1\n"
    history = [user("fix it"), assistant(tool_use("tu_a", "edit_file",
                                                  {"path": "cart.py", "old": old, "new": "x"})),
               user(tool_result("tu_a", result))]
    html = MessageList(history)._repr_html_()
    assert re.search(r'<div style="white-space:pre-wrap[^"]*">' + re.escape(old) + "</div>", html)
    assert re.search(r'id=tu_a</span></div><div style="white-space:pre-wrap[^"]*">def f\(\):\n    '
                     r'return 1', html)


def test_a_long_result_shows_its_start_and_opens_to_the_rest():
    long = "".join(f"line {i:03d}\n" for i in range(100))  # 900 characters
    history = [user("q"), assistant(tool_use("tu_a", "read", {})), user(tool_result("tu_a", long))]
    html = MessageList(history)._repr_html_()
    shown, rest = html.split("<details", 1)
    assert "line 000" in shown and "line 099" not in shown
    assert "show all 900 characters" in rest and "line 099" in rest


def test_a_result_without_its_tool_use_is_flagged():
    html = MessageList(BAD["P3"])._repr_html_()
    assert "no tool_use with this id in the message before" in html
    unanswered = [user("q"), assistant(tool_use("tu_a", "add", {})), user("no result here")]
    assert "no tool_result in the next user message" in MessageList(unanswered)._repr_html_()


def test_views_are_deterministic_and_escape_text():
    history = GOOD + [user("<script>alert(1)</script>")]
    a, b = MessageList(history), MessageList(history)
    assert a._repr_html_() == b._repr_html_() and repr(a) == repr(b)
    assert "<script>" not in a._repr_html_()
    assert not re.search(r"0x[0-9a-f]{6,}", a._repr_html_() + repr(a))


def test_a_runs_result_and_its_sdk_messages_render():
    result = SCENARIOS["aurora_run"].run()
    view = MessageList.of(result)
    assert view.holds
    assert "1974" in view._repr_html_()


def test_frames_of_a_limit_exit_keep_the_unrun_call_out_of_the_history():
    run = run_frames("aurora_run", max_turns=1)
    last = run[-1]
    assert last.outcome == "error_max_turns" and last.answer is None
    assert (last.calls, last.turns) == (2, 1)
    assert [b["type"] for b in last.pending["content"]] == ["text", "tool_use"]  # asked, never run
    assert last.pending not in last.messages
    assert all(f.outcome is None for f in run[:-1])
    assert MessageList(last.messages).holds  # h is still a valid request


def test_frames_count_calls_and_turns_up_to_t_plus_one():
    for T in (0, 2, 4):
        last = run_frames("always_tool", max_turns=T)[-1]
        assert (last.calls, last.turns, last.outcome) == (T + 1, T, "error_max_turns")


def test_frame_html_shows_meters_and_outcome():
    run = run_frames("aurora_run", max_turns=1)
    html = frame_html(run[-1], Limits(max_turns=1), len(run) - 1, len(run))
    assert "tool-use turns: 1 / 1" in html and "model calls: 2 / 2 (T+1)" in html
    assert ">error_max_turns</span></span> answer: None" in html
    assert "its tool_use blocks never ran" in html
    html = frame_html(run[1], Limits(max_turns=1), 1, len(run))
    assert ">running</span>" in html and "its tools run next" in html


def test_token_growth_draws_the_materials_numbers():
    inputs = inputs_per_call(5_000, [2_000] * 9)
    fig = token_growth(inputs, window=200_000)
    bars, line = fig.axes[0].patches, fig.axes[1].lines[0]
    assert [b.get_height() for b in bars] == inputs
    assert list(line.get_ydata()) == [sum(inputs[:k]) for k in range(1, 11)]
    note = fig.axes[0].texts[0].get_text()
    assert "n_10 = 23,000, total = 140,000" in note and "K ≤ 98" in note
    legend = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert legend == ["n_k: input of call k (left axis)", "total so far (right axis)"]
    assert (
        fig.axes[0].get_ylim()[0] == 0
        and fig.axes[0].yaxis.get_major_formatter()(140000, 0) == "140,000"
    )


def test_measured_laps_start_the_axis_near_the_data_so_growth_shows():
    laps = [21_235, 22_307, 22_949, 23_812, 24_006]
    ax = token_growth(laps).axes[0]
    assert 0 < ax.get_ylim()[0] <= 21_235 and "axis from" in ax.get_ylabel()
    # under each call's number
    growth = [t.get_text().split("\n")[1:] for t in ax.get_xticklabels()]
    assert growth == [[], ["+1,072"], ["+642"], ["+863"], ["+194"]]


def marker_points(fig) -> list:
    """Where every marker of every plotted line is drawn, in pixels."""
    return [tuple(xy) for ax in fig.axes for line in ax.get_lines()
            if line.get_marker() not in (None, "", "None")
            for xy in line.get_transform().transform(line.get_xydata())]


@pytest.mark.parametrize("plot", ["laps", "example_5_3", "budget"])
def test_no_text_covers_a_marker(plot):
    """As lesson 07 draws them: no note, annotation, legend or tick label lies over a marker of a
    line."""
    fig = {"laps": lambda: token_growth([21_235, 22_307, 22_949, 23_812, 24_006]),
           "example_5_3": lambda: token_growth(inputs_per_call(5_000, [2_000] * 9), window=200_000),
           "budget": lambda: budget_spend([3, 3, 3, 3], 10)}[plot]()
    fig.canvas.draw()
    points = marker_points(fig)
    assert points
    radius = 4  # pixels: a marker of 6 pt at 100 dpi, rounded up
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    boxes = [(t.get_text(), t.get_window_extent().expanded(1, 1).padded(radius)) for t in texts]
    boxes += [("legend", ax.get_legend().get_window_extent()) for ax in fig.axes if ax.get_legend()]
    covered = [(text, (round(x), round(y))) for text, box in boxes for x,
               y in points if box.contains(x, y)]
    assert not covered, covered


@pytest.mark.parametrize("plot", ["growth", "budget", "timeline"])
def test_plots_fit_the_output_area_at_1024_px(plot):
    """The PNG a notebook shows (bbox tight, 100 dpi) is no wider than JupyterLab's output area at
    1024 px with the file browser open, 592 px (tests/views/test_browser.py measures it): drawn at
    full size, not scaled down."""
    ends = [ToolEnd("tu_a", "read", "x", False, 0.1, 0.6),
            ToolEnd("tu_b", "read", "y", False, 0.1, 0.5)]
    fig = {"growth": lambda: token_growth([21_235, 22_307, 22_949, 23_812, 24_006],
                                          title="Claude Code fixing "
                                          "cart.py (the Blog measured, Haiku 4.5, one run)"),
           "budget": lambda: budget_spend([3, 3, 3, 3], 10, title="B = 10, every response costs 3"),
           "timeline": lambda: tool_timeline({"parallel": ends, "sequential": ends})}[plot]()
    png = io.BytesIO()
    fig.savefig(png, format="png", bbox_inches="tight")  # as the inline backend does
    height, width = imread(io.BytesIO(png.getvalue())).shape[:2]
    assert width <= 592, width


def test_budget_spend_marks_the_overshoot_of_prop_5_4():
    fig = budget_spend([3, 3, 3, 3], 10)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == [r"overshoot \$2.00 < c_4 = \$3.00"]
    fig.canvas.draw()
    legend, plot = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert legend.x0 >= plot.x1  # beside the plot: the dashed B line cannot run through it
    assert r"B = \$10.00" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(isinstance(c, PolyCollection) for c in ax.collections)  # the shaded overshoot
    under = budget_spend([3, 3], 10).axes[0]
    assert list(under.texts) == [] and not any(isinstance(c, PolyCollection)
                                               for c in under.collections)


def test_tool_timeline_places_each_call_at_its_times():
    parallel = [ToolEnd("tu_a", "read", "x", False, 0.1, 0.6),
                ToolEnd("tu_b", "read", "y", False, 0.1, 0.5)]
    sequential = [ToolEnd("tu_a", "read", "x", False, 0.1, 0.6),
                  ToolEnd("tu_b", "read", "y", True, 0.6, 1.0)]
    fig = tool_timeline({"parallel": parallel, "sequential": sequential})
    spans = [[(round(p.get_x(), 3), round(p.get_x() + p.get_width(), 3)) for p in ax.patches]
             for ax in fig.axes]
    assert spans == [[(0.1, 0.6), (0.1, 0.5)], [(0.1, 0.6), (0.6, 1.0)]]
    assert fig.axes[0].get_title(loc="left") == "parallel: 2 calls over 0.50 s"
    assert fig.axes[-1].get_xlim()[1] <= 1.0 * 1.05  # the axis ends with the data
    labels = fig.axes[0].get_yticklabels()
    assert [t.get_text() for t in labels] == ["#1 read", "#2 read"] and min(
        t.get_fontsize() for t in labels) >= 10


def test_figures_are_released_by_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    fig = token_growth([1, 2, 3])
    assert plt.get_fignums() == before  # a notebook shows it once, as the cell's value
    # what nbval compares, with its description
    assert repr(fig) == "<DescribedFigure size 560x360 with 2 Axes>"


@pytest.mark.parametrize("plot", [lambda: token_growth([21_235, 22_307, 24_006], window=200_000),
                                  lambda: budget_spend([3, 3, 3, 3], 10)],
                         ids=["token_growth", "budget_spend"])
def test_a_plot_is_shown_with_a_text_description_after_its_image(plot):
    """JupyterLab gives an image output no alt text: the description is an output of its own, read
    by a screen reader, and it says the numbers the figure draws."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    try:
        fig = plot()
        with capture_output() as shown:
            display(fig)
    finally:
        # no shell left behind: the process's later tests (check()'s report) are not in a notebook
        InteractiveShell.clear_instance()
    assert [sorted(o.data) for o in shown.outputs] == [["image/png", "text/plain"],
                                                       ["text/markdown", "text/plain"]]
    described = shown.outputs[1].data["text/plain"]
    assert described.startswith("Figure: ") and described == fig.description
    assert ("24,006" in described and "67,548" in described) or (
        "$12.00" in described and "$10.00" in described
    )
    # no math mode in Markdown
    assert r"\$" in shown.outputs[1].data["text/markdown"] or "$" not in described


def test_the_tool_timeline_is_described_in_words_without_the_wall_clock():
    """Lesson 08's timeline has a description too: each run's calls and whether they overlapped, not
    its seconds (a real clock's: nbval compares the text, so it must not change from run to run)."""
    parallel = [ToolEnd("tu_a", "read", "x", False, 0.1, 0.6),
                ToolEnd("tu_b", "read", "y", False, 0.1, 0.5)]
    sequential = [ToolEnd("tu_a", "read", "x", False, 0.1, 0.6),
                  ToolEnd("tu_b", "edit", "y", True, 0.6, 1.0)]
    mixed = parallel + [ToolEnd("tu_c", "edit", "z", False, 0.6, 0.7)]
    fig = tool_timeline({"parallel": parallel, "sequential": sequential, "mixed": mixed,
                         "one": parallel[:1], "none": []})
    assert isinstance(fig, DescribedFigure)  # shown with its description after the image
    assert fig.description == (
        "Figure: one row of bars per run, each tool call a bar from its start to its end. "
        "parallel: 2 calls (#1 read, #2 read), all of them running at the same time. "
        "sequential: 2 calls (#1 read, #2 edit), one after another, none overlapping. "
        "mixed: 3 calls (#1 read, #2 read, #3 edit), at most 2 of them running at the same time. "
        "one: 1 call (#1 read). none: no tool calls.")
