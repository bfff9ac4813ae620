"""The grading subcommands of `python -m course`: assign, grade, gradescope."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ...i18n import tr
from .sandbox.confinement import MODES


def usage_error(message: str) -> int:
    print(tr("error: {message}").format(message=message), file=sys.stderr)
    return 2


def grade(args) -> int:
    from ..marks.report import merge, write_json
    from .batch import grade_batch
    from .budget import Budget

    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        return usage_error(
            tr("no such notebook or folder: {paths}").format(paths=", ".join(missing)))
    if args.tests and not os.path.isdir(args.tests):
        return usage_error(tr("{path}: not a folder").format(path=f"--tests {args.tests}"))
    if args.jobs is not None and args.jobs < 1:
        return usage_error(tr("--jobs must be at least 1"))
    try:
        budget = Budget.parse([f"call={args.timeout}", *args.limit])
        reports = grade_batch(args.paths, args.out, args.tests, args.jobs, budget=budget,
                              isolation=args.isolation)
    except ValueError as e:
        return usage_error(str(e))
    # Gradescope: an empty submission gets results that say why (the batch said it too)
    if args.results:
        nothing = "" if reports else tr("No .ipynb notebook was found in the submission.")
        write_json(Path(args.results), merge(reports, nothing))
        return 0
    return 0 if reports else 1  # nothing was graded: the batch's log said why


def assign(args) -> int:
    from .assign import assign as generate

    if not os.path.isdir(args.solutions):
        return usage_error(tr("{path}: not a folder").format(path=args.solutions))
    for path, error in generate(Path(args.solutions), Path(args.exercises),
                                execute=not args.no_execute):
        said = f"{path}: {error}" if error else tr("wrote {path}").format(path=path)
        print(said, file=sys.stderr if error else sys.stdout)
    return 0


def gradescope(args) -> int:
    from .gradescope import build

    if args.tests and not os.path.isdir(args.tests):
        return usage_error(tr("{path}: not a folder").format(path=f"--tests {args.tests}"))
    print(build(Path(args.out), Path(args.tests) if args.tests else None))
    return 0


def add_commands(sub) -> None:
    p = sub.add_parser("grade", help="grade submitted notebooks on the wire; one Gradescope "
                                     "results.json each")
    p.add_argument("paths", nargs="*",
                   help="submitted notebooks (their file names must differ), or class folders: "
                   "<student>/<notebook>.ipynb or nbgrader's "
                   "<student>/<assignment>/<notebook>.ipynb")
    p.add_argument("--out", required=True,
                   help="folder for the reports, summary.csv and, for a class, gradebook.csv "
                   "and <student>/feedback.html (reports the seals vouch for are kept)")
    p.add_argument("--tests", help="folder of instructor checks (*.py defining EXERCISES), hidden "
                                   "from students")
    p.add_argument("--jobs", type=int,
                   help="exercise processes run at once (default: two per core)")
    p.add_argument("--timeout", type=float, default=15.0,
                   help="seconds one call of a student's function may take")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="one of the sandbox's limits (course/grading/classroom/budget.py: call, "
                        "cell, exercise, cpu, "
                   "memory, file, disk, inodes, processes, connections; bytes may end in K, M, G), "
                   "e.g. --limit memory=512M")
    p.add_argument("--isolation", choices=MODES,
                   help="how student code is confined (default: the strongest "
                   "this machine allows; see docs/GRADING.md)")
    p.add_argument("--results",
                   help="also write every report merged into this one results.json (Gradescope)")
    p.set_defaults(func=grade)
    p = sub.add_parser("assign", help="generate exercises/ from solutions/ (solutions become "
                                      "stubs), then execute them")
    p.add_argument("--solutions", default="solutions")
    p.add_argument("--exercises", default="exercises")
    p.add_argument("--no-execute", action="store_true",
                   help="write the notebooks without running them")
    p.set_defaults(func=assign)
    p = sub.add_parser("gradescope", help="build a Gradescope autograder bundle (zip)")
    p.add_argument("--out", default="autograder.zip")
    p.add_argument("--tests", help="folder of instructor checks to bundle as hidden tests")
    p.set_defaults(func=gradescope)

