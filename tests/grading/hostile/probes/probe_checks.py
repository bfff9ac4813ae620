"""Probes (a --tests folder): two exercises whose single check fails showing what the student's
function returned, so the tests can read what its code could do. `tools` gets RUN_TOOL on
broken_functions' workspace (write_file, run_python, ...); `probe` gets the SDK client on the
grader's API."""
import json

from course.contract.exercise import CLIENT, RUN_TOOL, Check, CheckFailed, Exercise


def shown(out) -> None:
    raise CheckFailed("VALUE " + json.dumps(out.value) if out.error is None
                      else f"ERROR {out.error}")


EXERCISES = [
    Exercise("tools", "tools", "What the workspace tools let code do", [
        Check("shows what it returned",
              lambda ctx: shown(ctx.call(RUN_TOOL, scenario="broken_functions")))],
        notebook="probes.ipynb"),
    Exercise("probe", "probe", "What the API's client lets code do", [
        Check("shows what it returned", lambda ctx: shown(ctx.call(CLIENT, scenario="one_shot")))],
        notebook="probes.ipynb"),
]
