"""Execute notebooks in place, deterministically: `python -m course execute PATHS...`.

The committed outputs are what `pytest --nbval` compares against, so they must
come out the same on every run: the kernel runs offline (the live-API switches
are removed from its environment), with a fixed hash seed, in the notebook's
folder; no timing metadata is recorded and execution counts start at 1.
A notebook that raises in a cell is left unchanged and reported.
"""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

# executed outputs always come from the local API
OFFLINE_UNSET = ("ANTHROPIC_API_KEY", "COURSE_LIVE")
VOLATILE_CELL_METADATA = ("execution", "collapsed", "scrolled")  # timings and UI state, not content
# names a model of the kernel session: a random id
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def kernel_env() -> dict[str, str]:
    """The environment the kernel runs in: this one, offline, with a fixed hash seed, speaking
    English whatever the machine's locale (a Japanese notebook sets COURSE_LANG=ja in its first
    cell)."""
    env = {k: v for k, v in os.environ.items() if k not in OFFLINE_UNSET}
    env["PYTHONHASHSEED"] = "0"
    env["COURSE_LANG"] = "en"
    return env


def coalesce(outputs: list) -> list:
    """Join consecutive stream outputs of the same stream: how a print is split into chunks varies
    by run."""
    joined: list = []
    for out in outputs:
        prev = joined[-1] if joined else None
        if (
            out.output_type == "stream"
            and prev is not None
            and prev.output_type == "stream"
            and prev.name == out.name
        ):
            prev.text += out.text
        else:
            joined.append(out)
    return joined


def clean(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Drop what changes between runs without changing the lesson: timings, UI state, widget state
    and views (a widget's static HTML snapshot stays), and the chunking of printed text."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = coalesce(cell.outputs)
            for out in cell.outputs:
                out.get("data", {}).pop(WIDGET_VIEW, None)
    return nb


def execute(path: str | Path, *, timeout: int = 60, allow_errors: bool = False) -> None:
    """Run every code cell of the notebook at `path` and write the outputs back into it
    (allow_errors: go on after a cell that raises, as an exercise's stubs do)."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            allow_errors=allow_errors,
                            store_widget_state=False,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute(env=kernel_env())
    nbformat.write(clean(nb), path)


def execute_all(paths: list[str], *, timeout: int = 60) -> list[tuple[str, str]]:
    """Execute each notebook; returns (path, error) for those that failed."""
    failed = []
    for p in paths:
        try:
            execute(p, timeout=timeout)
        except CellExecutionError as e:
            failed.append((p, f"{e.ename}: {e.evalue}"))
    return failed
