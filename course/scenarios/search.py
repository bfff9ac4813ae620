"""Multi-step search (Aurora Run), the one-shot question, and a model that never stops."""
from __future__ import annotations

from ..api import Conversation, Turn
from ..i18n import deferred, every_language, tr
from ..tools import Tool, Toolbox
from .base import Scenario, call, one_task, say

# The four-page corpus of the material's lesson; page 1 holds the distractor 1951. A page speaks the
# run's language with the same facts (names, years) in each: the policies here read facts, not
# sentences.
PAGES = {
    "Aurora Run": deferred("Aurora Run is a 1998 novel by Henrik Dahl (born 1951). It was adapted "
                           "into a 2011 film directed by Mara Voss."),
    "Mara Voss": deferred("Mara Voss (born 1974) is a Norwegian film director, known for Aurora "
                          "Run (2011)."),
    "Henrik Dahl": deferred("Henrik Dahl (born 1951) is a Norwegian novelist, the author of Aurora "
                            "Run (1998)."),
    deferred("Northern Lights"): deferred("The northern lights (aurora borealis) are a natural "
                                          "light display in high-latitude skies."),
}
NOT_FOUND = deferred("No matching page found.")


def search(query: str) -> str:
    """The page whose title best matches the query (a title is a name, or a word of the run's
    language)."""
    q = query.lower().strip()
    titles = {tr(title): page for title, page in PAGES.items()}
    for title, page in titles.items():
        if title.lower() == q:
            return tr("{title}: {page}").format(title=title, page=tr(page))
    for title, page in titles.items():
        if title.lower() in q or q in title.lower():
            return tr("{title}: {page}").format(title=title, page=tr(page))
    return tr(NOT_FOUND)


def search_tools() -> Toolbox:
    return Toolbox(
        [
            Tool(
                "search",
                tr("Search a small encyclopedia; returns the best matching page. Read-only."),
                {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": tr("a page title")}},
                    "required": ["query"],
                },
                search,
                read_only=True,
            )
        ]
    )


@one_task
def aurora_policy(c: Conversation) -> Turn:
    """Find the film's director, then the director's birth year; ignore the novelist's 1951.
    It reads facts, not sentences: the director's page is the one with her year, 1974; the film's
    names her."""
    seen = " ".join(c.result_text(r) for _, r in c.all_results() if not r.get("is_error"))
    errors = [r for r in c.results() if r.get("is_error")]
    if errors:
        return say(tr("I could not use the search tool ({error}), so I cannot answer.").format(
            error=c.result_text(errors[0])[:80]))
    if "1974" in seen:
        return say("1974")
    if "Mara Voss" in seen:
        return say(tr("The film was directed by Mara Voss; the 1951 is the novelist. Searching for "
                      "her."),
                   call("search", query="Mara Voss"))
    # a harness's ToolSearch turn aside
    searched = sum(1 for u, _ in c.all_results() if u["name"] == "search")
    if any(text in seen for text in every_language(NOT_FOUND)) and searched >= 2:
        return say(tr("I could not find the film, so I cannot answer."))
    if searched:
        return Turn([call("search", query=tr("Aurora Run film"))])
    return Turn([call("search", query="Aurora Run")])


def thinking_policy(c: Conversation) -> Turn:
    """Aurora Run by a model that thinks first (adaptive thinking, 5.x): every reply starts with a
    thinking block."""
    turn = aurora_policy(c)
    return Turn([{"type": "thinking", "thinking": ""}, *turn.content], turn.stop_reason,
                turn.stop_details)


@one_task
def paris_policy(c: Conversation) -> Turn:
    return say("Paris")  # the answer is a fact, the same in every edition (as 1974 is)


@one_task
def always_tool_policy(c: Conversation) -> Turn:
    """M_inf of Thm. 4.1: every response asks for one more tool call."""
    return Turn([call("search", query=tr("Aurora Run part {n}").format(n=c.calls_so_far + 1))])


AURORA = Scenario("aurora_run", deferred("Multi-step search: Aurora Run"),
                  deferred("In which year was the director of the film Aurora Run born?"),
                  aurora_policy, search_tools,
                  notes="two searches, three calls; the first page's 1951 is a distractor; the "
                        "answer is 1974")
THINKING = Scenario("thinking_run", deferred("Aurora Run with thinking blocks"),
                    AURORA.english_prompt, thinking_policy, search_tools,
                    notes="each reply starts with a thinking block (empty text, a signature) that "
                          "the loop must send back unmodified; dropping or changing it, or editing "
                          "the history before it, is a 400")
ONE_SHOT = Scenario("one_shot", deferred("One-shot: the capital of France"),
                    deferred("What is the capital of France?"),
                    paris_policy, search_tools,
                    notes="end_turn on the first call: one call, no tools")
ALWAYS_TOOL = Scenario("always_tool", deferred("A model that always calls a tool"),
                       deferred("Tell me everything about Aurora Run."), always_tool_policy,
                       search_tools,
                       notes="never ends its turn: only max_turns stops it, after exactly T+1 "
                             "calls")
