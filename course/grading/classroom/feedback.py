"""A student's feedback page: every check of every notebook, passed or failed, with the why and the
hint; a hidden check (an instructor's, from --tests) only counted, never shown, as Gradescope shows
it only once grades are published."""
from __future__ import annotations

from html import escape
from pathlib import Path

from ...i18n import language, tr
from ..marks.printable import printable

STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em "
         "auto}table{border-collapse:collapse;width:100%}"
         "td,th{border:1px solid "
         "#ccc;padding:.3em;vertical-align:top;text-align:left}.passed{color:#064}"
         ".failed{color:#a00}pre{white-space:pre-wrap;margin:0}"
         # a result never breaks: 不合格 not on three lines
         "td.passed,td.failed,td.points{white-space:nowrap}")


def exercise_titles() -> dict[str, str]:
    """grade_id -> the exercise's title (its English, translated where shown)."""
    from ..judging.registry import shipped

    return {gid: e.title for gid, e in shipped().exercises.items()}


def visible(test: dict) -> bool:
    """A check results.json shows now (the others are shown once grades are published)."""
    return test.get("visibility", "visible") == "visible"


def lesson_title(report: dict) -> str | None:
    """The title of the lesson whose exercises the report grades (None for exercises of no
    lesson)."""
    from ...lessons import LESSONS
    from ..judging.registry import shipped

    exercises = shipped().exercises
    stems = {Path(exercises[gid].notebook).stem for t in report["tests"]
             if (gid := t["name"].split(": ", 1)[0]) in exercises}
    return dict(LESSONS).get(stems.pop()) if len(stems) == 1 else None


def feedback_html(student: str, reports: dict[str, dict], *, person: bool = True) -> str:
    """The page for `student` from their reports (Gradescope results.json dicts, by notebook stem),
    in the language the course speaks now (an English page has no lang attribute, as before the
    Japanese edition); `person=False`: the page of a notebook graded on its own, `student` its
    name."""
    lang = "" if language() == "en" else f' lang="{language()}"'
    # a folder name: its control characters and undecodable bytes shown escaped
    student = printable(student)
    title = tr("Feedback: {student}").format(student=student)
    heading = (tr("Feedback for {student}") if person else tr("Feedback on {notebook}")).format(
        student=student, notebook=student)
    # hidden checks: not even their points
    shown = [t for r in reports.values() for t in r["tests"] if visible(t)]
    overall = tr("Total: {score:g}/{total:g} points").format(
        score=round(sum(t["score"] for t in shown), 4), total=sum(t["max_score"] for t in shown)
    )
    columns = "".join(f"<th>{escape(c)}</th>" for c in (tr("check"), tr("result"), tr("points"),
                                                        tr("why, and a hint")))
    parts = [f"<!doctype html><html{lang}><head><meta "
             f"charset='utf-8'><title>{escape(title)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{escape(heading)}</h1>",
             f"<p>{escape(overall)}</p>"]
    titles = exercise_titles()
    for stem, report in reports.items():
        tests = [t for t in report["tests"] if visible(t)]
        withheld = [t for t in report["tests"] if not visible(t)]
        lesson = lesson_title(report)
        score = (tr("{stem} ({lesson}): {score:g}/{total:g} points") if lesson else
                 tr("{stem}: {score:g}/{total:g} points")).format(
            stem=printable(stem), lesson=lesson, score=round(sum(t["score"] for t in tests), 4),
            total=sum(t["max_score"] for t in tests))
        parts.append(f"<h2>{escape(score)}</h2>")
        notes = report.get("output", "").split("\n", 1)  # its first line repeats the heading
        if len(notes) > 1:
            parts.append(f"<pre>{escape(notes[1])}</pre>")
        # results.json shows them once grades are published: their cases and answers are secret
        if withheld:
            parts.append(
                "<p>"
                + escape(
                    tr(
                        "{count} hidden checks ({points:g} points) are shown "
                        "once grades are published"
                    ).format(count=len(withheld), points=sum(t["max_score"] for t in withheld))
                )
                + "</p>"
            )
        parts.append(f"<table><tr>{columns}</tr>")
        exercise = None
        for t in tests:
            if (gid := t["name"].split(": ", 1)[0]) != exercise:  # each exercise under its title
                exercise = gid
                title = (
                    tr("{title} ({grade_id})").format(title=tr(titles[gid]), grade_id=gid)
                    if gid in titles
                    else gid
                )
                parts.append(f"<tr><th colspan='4'>{escape(title)}</th></tr>")
            status = "passed" if t["status"] == "passed" else "failed"
            verdict = tr("passed") if status == "passed" else tr("failed")
            detail = "" if status == "passed" else t.get("output", "")
            parts.append(f"<tr><td>{escape(t['name'])}</td><td "
                         f"class='{status}'>{escape(verdict)}</td>"
                         "<td "
                         f"class='points'>{t['score']:g}/{t['max_score']:g}</td><td><"
                         f"pre>{escape(detail)}</pre>"
                         "</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
