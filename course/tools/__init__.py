"""Tools: JSON-Schema definitions with the code that runs them, and a sandboxed workspace."""
from .toolbox import Tool, Toolbox, from_dict, tool
from .workspace import OutsideWorkspace, Workspace

__all__ = ["OutsideWorkspace", "Tool", "Toolbox", "Workspace", "from_dict", "tool"]
