"""What the reference loop reports: events as they happen, and the Result at the end.

`Agent.events()` yields ModelCall, ModelResponse, ToolStart, ToolEnd, LimitHit
and finally Finished(result); views and widgets read these, never the loop's
internals. Result subtypes are named like the Agent SDK's ResultMessage.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# How a run ended, named like the Agent SDK's ResultMessage subtypes (the first four are the SDK's
# own).
SUCCESS = "success"  # end_turn, or a stop_sequence: the model finished
MAX_TURNS = "error_max_turns"  # the response after the T-th turn still asked for tools
MAX_BUDGET = "error_max_budget_usd"  # spend reached max_budget_usd (checked after each response)
# the API failed even after the SDK's retries, or the run was interrupted
DURING_EXECUTION = "error_during_execution"
MAX_TOKENS = "error_max_tokens"  # the response was cut at max_tokens: not an answer
REFUSAL = "error_refusal"  # the model declined (stop_reason refusal)
CONTEXT_WINDOW = "error_context_window"  # model_context_window_exceeded: the window is full
TOKEN_BUDGET = "error_max_total_tokens"  # input+output tokens reached max_total_tokens
TIMEOUT = "error_timeout"  # wall clock reached timeout_s
REPEATED = "error_repeated_call"  # the same tool with the same input max_repeats times in a row
ESCALATED = "error_escalated"  # handed to a human, who chose to stop

SUBTYPES = (SUCCESS, MAX_TURNS, MAX_BUDGET, DURING_EXECUTION, MAX_TOKENS, REFUSAL, CONTEXT_WINDOW,
            TOKEN_BUDGET, TIMEOUT, REPEATED, ESCALATED)


@dataclass
class ModelCall:
    """The loop is about to call the model."""

    call: int  # 1-based number of this model call
    messages: list  # what is sent (a copy of h)


@dataclass
class ModelResponse:
    """The model answered."""

    call: int
    message: dict  # the assistant message a, as a dict
    usage: dict  # as the API reported it
    cost_usd: float  # what this response cost
    stop_reason: str | None = None


@dataclass
class ToolStart:
    """A tool call is about to run (or be refused by the gate)."""

    id: str
    name: str
    input: dict
    at: float  # seconds since the run started


@dataclass
class ToolEnd:
    """A tool call's result, the one that goes into the tool_result block."""

    id: str
    name: str
    content: str
    is_error: bool
    started: float  # seconds since the run started
    ended: float


@dataclass
class LimitHit:
    """The run stops for a reason other than success."""

    subtype: str
    detail: str


@dataclass
class Result:
    """How a run ended and what it cost."""

    subtype: str
    text: str | None  # the final answer; None unless subtype is success
    messages: list  # the next request's messages, plus the final assistant message on success
    calls: int = 0  # model calls made
    turns: int = 0  # tool-use turns completed (paused turns count too)
    usage: dict = field(default_factory=dict)  # summed over calls
    usages: list = field(default_factory=list)  # one usage per call, in order
    cost_usd: float = 0.0
    duration_s: float = 0.0
    stop_reason: str | None = None  # of the last response
    detail: str = ""  # why it stopped, in words

    @property
    def is_error(self) -> bool:
        return self.subtype != SUCCESS


@dataclass
class Finished:
    """The last event of every run."""

    result: Result
