"""A scenario is a worked example of the material: a policy (the toy model), its
tools, a prompt, and a fresh environment for every run.

    s = get("fix_failing_test")
    result = s.run(limits=Limits(max_turns=5))      # fresh API, fresh files
    ws = s.workspace(); agent = s.agent(workspace=ws)   # keep the files to look at them after
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from ..api import Conversation, LocalAPI, Turn
from ..client import MODEL, local_client
from ..gate import BLOCKED, DENIED, Gate
from ..i18n import every_language, tr
from ..loop import Agent, Limits
from ..tools import Toolbox, Workspace


@dataclass
class Scenario:
    name: str
    title: str
    # the prompt as written (deferred); `prompt` says it in the language the course speaks
    english_prompt: str
    policy: Callable[[Conversation], Turn]
    # a fresh environment per run (scenarios without files)
    make_tools: Callable[[], Toolbox] = Toolbox
    system: str | None = None
    notes: str = ""  # what the scenario teaches, one line
    options: dict = field(default_factory=dict)  # LocalAPI options (e.g. context_window)
    files: dict[str, str] | None = None  # the workspace's files, for scenarios that work on files
    # the tools over a workspace
    workspace_tools: Callable[[Workspace], Toolbox] = Workspace.toolbox
    gate: Gate | None = None  # the permission rules the scenario is about, if any
    # messages -> goal_loop.Verdict, for the goal loop
    evaluator: Callable[[list], object] | None = None
    # the outer loop's success condition, read from the files
    is_done: Callable[[Workspace], bool] | None = None

    @property
    def prompt(self) -> str:
        return tr(self.english_prompt)

    def api(self, **options) -> LocalAPI:
        """A fresh local API answering with this scenario's policy (options, a `policy` too,
        override the scenario's)."""
        return LocalAPI(**{"policy": self.policy, **self.options, **options})

    def workspace(self) -> Workspace:
        """A fresh copy of the scenario's files."""
        return Workspace(self.files or {})

    def tools(self, workspace: Workspace | None = None) -> Toolbox:
        """The scenario's tools, over `workspace` (a fresh one by default) when it has files."""
        if self.files is None:
            return self.make_tools()
        return self.workspace_tools(workspace if workspace is not None else self.workspace())

    def agent(self, *, limits: Limits | None = None, api: LocalAPI | None = None,
              workspace: Workspace | None = None, tools: Toolbox | None = None, **options) -> Agent:
        """An Agent on a fresh local API (or `api`) with the scenario's tools (or `tools`); options
        go to Agent."""
        client = local_client(api or self.api())
        options.setdefault("gate", self.gate or Gate())
        return Agent(client, MODEL, tools if tools is not None else self.tools(workspace),
                     limits=limits or Limits(), system=self.system, **options)

    def run(self, **options):
        """Run the scenario's prompt once; options as for `agent`."""
        return self.agent(**options).run(self.prompt)


def say(*blocks: dict | str, stop_reason: str | None = None,
        stop_details: dict | None = None) -> Turn:
    """A Turn from text strings and block dicts."""
    return Turn([{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks],
                stop_reason, stop_details)


def call(name: str, **input) -> dict:
    """A tool_use block without an id (the API assigns one)."""
    return {"type": "tool_use", "id": "", "name": name, "input": input}


def since_request(c: Conversation) -> list[tuple[dict, dict]]:
    """(tool_use, tool_result) pairs since the last user message that is a request (no tool_result
    in it): what the model has done about the prompt, or about the latest feedback."""
    return Conversation({"messages": c.messages[c.request_at:]}).all_results()


def one_task(policy: Callable[[Conversation], Turn]) -> Callable[[Conversation], Turn]:
    """The policy of a toy model that knows one task, the conversation's first request. Asked
    something else later in the same conversation (a follow-up in one ClaudeSDKClient, a resumed
    session) it says so, where the policy alone would give its first answer again; asked the same
    again, or asked for its answer in a schema's shape (langchain's with_structured_output after an
    agent's run), it answers as before."""
    @functools.wraps(policy)
    def knowing(c: Conversation) -> Turn:
        if c.request.strip() != c.prompt.strip() and not c.constrained:
            return say(tr("This toy model knows only the first request of this conversation, not "
                          "this one: {prompt}").format(prompt=c.prompt.strip()))
        return policy(c)

    return knowing


def last_turn(c: Conversation) -> list[tuple[dict, dict]]:
    """The (tool_use, tool_result) pairs answering the previous turn, in order."""
    ids = {r["tool_use_id"] for r in c.results()}
    return [(u, r) for u, r in c.all_results() if r["tool_use_id"] in ids]


def says(content: str, *messages: str) -> bool:
    """Whether `content` holds one of `messages` in any language (up to its first placeholder): a
    toy model recognises the gate's or a hook's answer by what it is, whatever language the tools
    speak."""
    return any(text.split("{", 1)[0] in content for message in messages
               for text in every_language(message))


def refused(c: Conversation) -> str | None:
    """The first refusal (gate or hook) among the last results, in words, or None."""
    for _, r in last_turn(c):
        content = c.result_text(r)
        if r.get("is_error") and says(content, DENIED, BLOCKED):
            return content
    return None
