"""Record a conversation as a transcript (JSONL) that the `Replay` policy answers from.

Each line is one successful call: {"request": <body sent>, "response": <Message JSON>}.
`python -m course record aurora_run` runs a scenario with the reference loop
and writes course/scenarios/transcripts/aurora_run.jsonl. The wire differs between the editions
(prompts and replies speak the student's language), so each has its own recordings: COURSE_LANG=ja
writes course/scenarios/transcripts/ja/aurora_run.jsonl.
"""
from __future__ import annotations

import json
from pathlib import Path

from ..api import LocalAPI
from ..i18n import language

# recorded conversations shipped with the course (English)
TRANSCRIPTS = Path(__file__).parent / "transcripts"


def transcript_path(name: str, lang: str | None = None) -> Path:
    """The shipped recording of scenario `name` in `lang` (by default the language the course
    speaks)."""
    lang = lang or language()
    return (TRANSCRIPTS if lang == "en" else TRANSCRIPTS / lang) / f"{name}.jsonl"


def transcript(api: LocalAPI) -> list[dict]:
    """The calls `api` answered with a Message (errors and count_tokens left out), in order."""
    return [{"request": r.body, "response": r.response} for r in api.requests
            if r.path == "/v1/messages" and r.status == 200]


def save(api: LocalAPI, path: str | Path) -> Path:
    """Write the transcript of `api` to `path`, one JSON object a line."""
    path = Path(path)
    lines = [json.dumps(step, ensure_ascii=False, sort_keys=True) for step in transcript(api)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def record_scenario(name: str, path: str | Path | None = None) -> Path:
    """Run scenario `name` once with the reference loop and save what crossed the wire (by default
    to the recording of the language the course speaks)."""
    from . import get  # the scenarios' registry imports every scenario: import it late

    scenario = get(name)
    api = scenario.api()
    scenario.run(api=api)
    path = Path(path or transcript_path(name))
    path.parent.mkdir(parents=True, exist_ok=True)
    return save(api, path)
