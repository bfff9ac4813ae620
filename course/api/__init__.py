"""The local Messages API: one handler, two mounts (in-process transport, loopback server)."""
from .errors import APIError
from .handler import Fault, LocalAPI, Recorded
from .models import MODELS, Model
from .policy import Conversation, Policy, Replay, Rules, Scripted, Turn
from .server import Server
from .transport import transport

__all__ = ["APIError", "Conversation", "Fault", "LocalAPI", "MODELS", "Model", "Policy", "Recorded",
           "Replay", "Rules", "Scripted", "Server", "Turn", "transport"]
