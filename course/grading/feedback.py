"""A student's feedback page: every check of every notebook, passed or failed, with the why and the hint."""
from __future__ import annotations

from html import escape

STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse;width:100%}"
         "td,th{border:1px solid #ccc;padding:.3em;vertical-align:top;text-align:left}.passed{color:#064}"
         ".failed{color:#a00}pre{white-space:pre-wrap;margin:0}")


def feedback_html(student: str, reports: dict[str, dict]) -> str:
    """The page for `student` from their reports (Gradescope results.json dicts, by notebook stem)."""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>Feedback: {escape(student)}</title>"
             f"<style>{STYLE}</style></head><body><h1>Feedback for {escape(student)}</h1>"]
    for stem, report in reports.items():
        total = sum(t["max_score"] for t in report["tests"])
        parts.append(f"<h2>{escape(stem)}: {report['score']:g}/{total:g} points</h2>")
        parts.append(f"<pre>{escape(report.get('output', ''))}</pre>")
        parts.append("<table><tr><th>check</th><th>result</th><th>points</th><th>why, and a hint</th></tr>")
        for t in report["tests"]:
            status = "passed" if t["status"] == "passed" else "failed"
            detail = "" if status == "passed" else t.get("output", "")
            parts.append(f"<tr><td>{escape(t['name'])}</td><td class='{status}'>{status}</td>"
                         f"<td>{t['score']:g}/{t['max_score']:g}</td><td><pre>{escape(detail)}</pre></td></tr>")
        parts.append("</table>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
