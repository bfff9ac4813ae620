"""Reports: the notebook's printed summary, Gradescope's results.json, the batch's summary.csv and
gradebook.csv.

Files are written atomically (a temp file, then os.replace), so a killed batch leaves either a
whole report or none.
"""
from __future__ import annotations

import csv
import io
import json
import os
import tempfile
import textwrap
from pathlib import Path

from ...contract.exercise import Exercise
from ...i18n import tr
from .mark import Mark
from .printable import printable

WIDTH = 110  # characters per line of a text report
# Gradescope visibility of hidden checks: shown once grades are published
HIDDEN = "after_published"
# a CSV cell starting so is a formula to a spreadsheet (OWASP)
FORMULA = ("=", "+", "-", "@", "\t", "\r")
TEXT = "\n\t"  # the control characters a report's text keeps: its lines and tabs


def text_report(exercise: Exercise, results: list[Mark]) -> str:
    """The per-check report printed in a notebook: deterministic, one line per check plus why it
    failed."""
    passed = sum(r.passed for r in results)
    score = sum(r.score for r in results)
    lines = [tr("{grade_id} ({title}): {passed} of {total} checks passed, {score:g}/{points:g} "
                "points").format(
        grade_id=exercise.grade_id, title=tr(exercise.title), passed=passed, total=len(results),
        score=score, points=exercise.points)]
    stub = [r for r in results if r.stub]
    # an untouched stub: one line, not the same failure per check
    if results and len(stub) == len(results):
        return "\n".join(lines + [f"  {stub[0].reason}",
                                  "  " + tr("hint: {hint}").format(hint=stub[0].hint)])
    passed_label, failed_label = tr("PASS"), tr("FAIL")
    for r, (why, hint) in zip(results, said_once(results), strict=True):
        lines.append(f"  {passed_label if r.passed else failed_label}  {r.name.split(': ', 1)[1]}")
        lines += [hanging(line) for line in (why, hint) if line]
    return "\n".join(lines)


def said_once(results: list[Mark]) -> list[tuple[str, str]]:
    """Each check's why and hint lines ("" for none): a why an earlier check gave points to that
    check, and a hint already given is not given again (one mistake fails several checks the same
    way)."""
    first: dict[str, str] = {}
    hinted: set[str] = set()
    lines = []
    for r in results:
        if r.passed:
            lines.append(("", ""))
            continue
        what = r.name.split(": ", 1)[1]
        why = (
            tr("why:  the same as for '{check}' above").format(check=first[r.reason])
            if r.reason in first
            else tr("why:  {reason}").format(reason=r.reason)
        )
        first.setdefault(r.reason, what)
        lines.append((why, tr("hint: {hint}").format(hint=r.hint) if r.hint and r.hint not in hinted
                      else ""))
        hinted.add(r.hint)
    return lines


def hanging(text: str, width: int = WIDTH) -> str:
    """A why or hint line wrapped at words, continued under its first word (not back at column
    0)."""
    return textwrap.fill(text, width, initial_indent=" " * 8, subsequent_indent=" " * 14,
                         break_long_words=False, break_on_hyphens=False)


class Report:
    """A check report as a notebook shows it: HTML (PASS and FAIL in colour, reasons in a hanging
    indent wrapped at words, the points labelled), and the same lines as text in a terminal."""

    def __init__(self, exercise: Exercise, results: list[Mark]):
        self.exercise, self.results = exercise, results

    def __repr__(self) -> str:
        return text_report(self.exercise, self.results)

    def _repr_html_(self) -> str:
        return html_report(self.exercise, self.results)


def html_report(exercise: Exercise, results: list[Mark]) -> str:
    """The report of text_report, as HTML with inline styles (it renders the same in JupyterLab and
    exported)."""
    from ...viz.style import ERROR, FONT, LINE, MUTED, OK, esc, tag

    score = sum(r.score for r in results)
    head = tr("{grade_id} ({title}): {passed} of {total} checks passed").format(
        grade_id=exercise.grade_id, title=tr(exercise.title), passed=sum(r.passed for r in results),
        total=len(results))
    points = tr("{score:g}/{points:g} points").format(score=score, points=exercise.points)
    colour = OK if results and all(r.passed for r in results) else ERROR
    rows = [f'<div style="font-weight:600">{esc(head)} {tag(points, colour)}</div>']
    stub = [r for r in results if r.stub]
    shown = stub[:1] if results and len(stub) == len(results) else results
    for r, (why, hint) in zip(shown, said_once(shown), strict=True):
        what = r.name.split(": ", 1)[1] if not r.stub or shown is results else ""
        label = tag(tr("PASS"), OK) if r.passed else tag(tr("FAIL"), ERROR)
        # a space after the badge: it is a word of its own
        lines = [f"{label} {esc(what)}" if what else label]
        lines += [esc(why)] if why else []
        lines += [f'<span style="color:{MUTED}">{esc(hint)}</span>'] if hint else []
        body = "<br>".join(lines)
        rows.append('<div style="padding-left:4.5em;text-indent:-4.5em;margin:2px '
                    '0;white-space:normal;'
                    f'overflow-wrap:break-word">{body}</div>')
    return f'<div style="{FONT};{LINE};max-width:100%">{"".join(rows)}</div>'


def test_entry(r: Mark) -> dict:
    """One Gradescope test."""
    hint = "\n" + tr("Hint: {hint}").format(hint=r.hint) if r.hint else ""
    note = "\n" + tr("Note: {note}").format(note=r.note) if r.note else ""
    output = (tr("passed") if r.passed else r.reason + hint) + note
    return {"name": printable(r.name), "score": r.score, "max_score": r.max_score,
            "status": "passed" if r.passed else "failed", "output": printable(output, keep=TEXT),
            "visibility": HIDDEN if r.hidden else "visible"}


def results_json(results: list[Mark], execution_time: float, output: str) -> dict:
    """Gradescope's results.json for one submission; what the student's code wrote is shown, never
    obeyed (a control character or a lone surrogate is escaped: see printable)."""
    return {"score": round(sum(r.score for r in results), 4),
            "execution_time": round(execution_time, 2),
            "output": printable(output, keep=TEXT), "visibility": "visible",
            "tests": [test_entry(r) for r in results]}


def merge(reports: list[dict], output: str = "") -> dict:
    """Several submissions' reports as one results.json (a Gradescope submission may hold several
    notebooks), each assignment counted once: of the notebooks that answer the same exercises, the
    first (by name) counts."""
    counted: dict[frozenset, dict] = {}
    for r in reports:
        counted.setdefault(frozenset(per_exercise(r)), r)
    if len(counted) < len(reports):
        output = "\n".join([tr("{count} more notebooks answer exercises another notebook answers: "
                               "only the first of each is counted").format(
                                   count=len(reports) - len(counted)), *filter(None, [output])])
    reports = list(counted.values())
    tests = [t for r in reports for t in r["tests"]]
    return {"score": round(sum(t["score"] for t in tests), 4),
            "execution_time": round(sum(r.get("execution_time", 0) for r in reports), 2),
            "output": "\n".join(
                [r["output"] for r in reports if r.get("output")] + ([output] if output else [])),
            "visibility": "visible", "tests": tests}


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: dict) -> None:
    """Write `data` to `path`, unless the file already holds exactly that (a kept report keeps its
    time)."""
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, ValueError):
        pass
    write_atomic(path, text)


def read_valid(path: Path) -> dict | None:
    """A results.json that parses and has Gradescope's shape, or None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = (isinstance(data, dict) and isinstance(data.get("score"), (int, float))
          and isinstance(data.get("tests"), list)
          and all(isinstance(t, dict) and {"name", "score", "max_score", "status"} <= t.keys()
                  for t in data["tests"]))
    return data if ok else None


def per_exercise(report: dict) -> dict[str, tuple[float, float]]:
    """grade_id -> (score, max) summed over the report's tests, named '<grade_id>: ...'."""
    scores: dict[str, tuple[float, float]] = {}
    for t in report["tests"]:
        gid = t["name"].split(": ", 1)[0]
        s, m = scores.get(gid, (0.0, 0.0))
        scores[gid] = (s + t["score"], m + t["max_score"])
    return scores


def text_cell(value: str) -> str:
    """A CSV cell a spreadsheet reads as text: one that would start a formula gets a leading '
    (OWASP); control characters escaped (a name is one line, and moves no terminal's cursor)."""
    value = printable(value)
    return "'" + value if value.startswith(FORMULA) else value


def summary_csv(reports: dict[str, dict]) -> str:
    """One row per submission (by stem): score, max, then each exercise's score."""
    ids: list[str] = []
    for report in reports.values():
        ids += [g for g in per_exercise(report) if g not in ids]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", "score", "max", *map(text_cell, ids)])
    for stem, report in reports.items():
        scores = per_exercise(report)
        writer.writerow([text_cell(stem), f"{report['score']:g}",
                         f"{sum(m for _, m in scores.values()):g}",
                         *(f"{scores[g][0]:g}" if g in scores else "" for g in ids)])
    return out.getvalue()


def gradebook_csv(students: dict[str, dict[str, dict]]) -> str:
    """One row per student (their reports by notebook stem): each exercise's score by grade_id, then
    the total."""
    scores = {student: {g: s for report in reports.values() for g,
                        (s, _) in per_exercise(report).items()}
              for student, reports in students.items()}
    ids = list(dict.fromkeys(g for row in scores.values() for g in row))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *map(text_cell, ids), "total"])
    for student, row in scores.items():
        writer.writerow([text_cell(student), *(f"{row[g]:g}" if g in row else "" for g in ids),
                         f"{sum(row.values()):g}"])
    return out.getvalue()
