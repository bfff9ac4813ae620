"""workshop/jupyterhub_config.py: loaded as JupyterHub loads it, its hook run on a student's spawn,
and a real hub serving one student (`make test` installs JupyterHub into build/workshop/, as `python
-m bench workshop` does)."""
from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from traitlets.config.loader import PyFileConfigLoader

from bench import workshop as bench

sys.path.insert(0, str(Path(__file__).parent))
from lab_settings import lab_locale  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "workshop" / "jupyterhub_config.py"


def load(monkeypatch, tmp_path, **settings):
    """The config as JupyterHub reads it, with these WORKSHOP_* settings."""
    for name in ("WORKSHOP_ROSTER", "WORKSHOP_RELAY_URL", "WORKSHOP_URL", "WORKSHOP_LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORKSHOP_STATE", str(tmp_path / "state"))
    monkeypatch.setenv("WORKSHOP_PASSWORD", "room-password")
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader(CONFIG.name, str(CONFIG.parent)).load_config()


def spawner(name: str, home: Path):
    """What the spawn hook reads and writes of a JupyterHub spawner."""
    return SimpleNamespace(home_dir=str(home), user=SimpleNamespace(name=name), environment={})


def test_the_config_runs_every_student_from_the_hub_environment_and_opens_lesson_00(
    monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)
    assert c.Spawner.cmd == [str(Path(sys.executable).parent / "jupyterhub-singleuser")]
    assert (ROOT / c.Spawner.default_url.removeprefix("/lab/tree/")).is_file()
    assert (
        c.JupyterHub.authenticator_class == "shared-password" and c.Authenticator.allow_all is True
    )
    assert c.SharedPasswordAuthenticator.user_password == "room-password"
    assert c.SimpleLocalProcessSpawner.home_dir_template == str(
        tmp_path / "state" / "homes" / "{username}")
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000"


def test_a_japanese_room_opens_the_japanese_lesson_00_and_its_library_speaks_japanese(
    monkeypatch, tmp_path):
    english = load(monkeypatch, tmp_path)
    assert "environment" not in english.Spawner
    c = load(monkeypatch, tmp_path, WORKSHOP_LANG="ja")
    assert c.Spawner.default_url == "/lab/tree/notebooks/ja/00_start_here.ipynb"
    assert (ROOT / c.Spawner.default_url.removeprefix("/lab/tree/")).is_file()
    assert c.Spawner.environment == {"COURSE_LANG": "ja"}


def test_a_japanese_room_shows_jupyterlab_in_japanese_and_keeps_a_language_the_student_picks(
    monkeypatch, tmp_path):
    english, japanese = tmp_path / "en", tmp_path / "ja"
    load(monkeypatch, tmp_path).Spawner.pre_spawn_hook(spawner("ada", english))
    c = load(monkeypatch, tmp_path, WORKSHOP_LANG="ja")
    c.Spawner.pre_spawn_hook(spawner("ada", japanese))
    assert (lab_locale(english), lab_locale(japanese)) == ("default", "ja_JP")
    picked = next(japanese.rglob("plugin.jupyterlab-settings"))
    picked.write_text('{"locale": "en"}')  # the student picks English in Settings > Language
    c.Spawner.pre_spawn_hook(spawner("ada", japanese))  # the next login
    assert lab_locale(japanese) == "en"


def test_first_login_copies_the_course_into_the_home_and_never_over_a_student_s_files(
    monkeypatch, tmp_path):
    c = load(monkeypatch, tmp_path)
    home = tmp_path / "home"
    s = spawner("ada", home)
    c.Spawner.pre_spawn_hook(s)
    lessons = sorted(p.name for p in (home / "notebooks").glob("*.ipynb"))
    assert lessons == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) and lessons
    (home / "notebooks" / "00_start_here.ipynb").write_text("the student's own work")
    c.Spawner.pre_spawn_hook(s)  # the next login
    assert (home / "notebooks" / "00_start_here.ipynb").read_text() == "the student's own work"
    assert s.environment == {}  # no relay: the local API


def test_with_a_relay_only_roster_students_log_in_and_each_server_gets_its_own_token(
    monkeypatch, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,token\nada,tok-ada\nbob,tok-bob\n")
    c = load(monkeypatch, tmp_path, WORKSHOP_ROSTER=str(roster),
             WORKSHOP_RELAY_URL="http://10.0.0.5:8765")
    assert c.Authenticator.allowed_users == {"ada", "bob"} and "allow_all" not in c.Authenticator
    s = spawner("bob", tmp_path / "bob")
    c.Spawner.pre_spawn_hook(s)
    assert s.environment == {"ANTHROPIC_BASE_URL": "http://10.0.0.5:8765",
                             "ANTHROPIC_API_KEY": "tok-bob", "COURSE_LIVE": "1"}


@pytest.mark.slow
def test_a_real_hub_logs_a_student_in_copies_the_course_and_runs_cells_with_the_relay_settings(
    tmp_path):
    assert (bench.VENV / ".installed").exists() and bench.PROXY.exists(), \
        "JupyterHub and its proxy are missing from build/workshop/: `make test` installs them"
    roster = tmp_path / "roster.csv"
    roster.write_text("student,token\nada,tok-ada\n")
    cells = ["import os; print(os.environ['ANTHROPIC_BASE_URL'], os.environ['ANTHROPIC_API_KEY'])",
             "print(sorted(os.listdir('.'))[:1], os.path.basename(os.getcwd()))"]
    state = tmp_path / "state"
    state.mkdir()
    hub = bench.Hub(state,
                    {"WORKSHOP_ROSTER": str(roster), "WORKSHOP_RELAY_URL": "http://127.0.0.1:9"})
    try:
        hub.wait()
        result = asyncio.run(bench.student(hub, "ada", cells))
        refused = asyncio.run(bench.room(hub, 1, cells))[0]  # "student000" is not on the roster
    finally:
        hub.stop()
    assert result["errors"] == []
    assert result["printed"] == "http://127.0.0.1:9 tok-ada\n['00_start_here.ipynb'] notebooks\n"
    assert isinstance(refused, RuntimeError) and "login failed" in str(refused)
    assert json.loads((state / "homes" / "ada" / "notebooks" / "00_start_here.ipynb").read_text())[
        "cells"
    ]
    assert hub.processes() == [hub.process.pid]  # nothing left running
