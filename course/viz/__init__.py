"""Views of messages and runs: the message-list view, a run frame by frame, the meters."""
from .message_list import RULES, MessageList
from .run import Frame, frame_html, frames

__all__ = ["RULES", "Frame", "MessageList", "frame_html", "frames"]
