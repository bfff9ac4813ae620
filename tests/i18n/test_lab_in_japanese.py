"""`make lab-ja` opens JupyterLab itself in Japanese: the language pack is installed and the
settings it installs select it; `make lab` keeps its own settings, so the English edition's menus
stay English."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.jupyter_lab import JupyterLab

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PLUGIN = Path("@jupyterlab") / "translation-extension" / "plugin.jupyterlab-settings"


def test_make_lab_ja_gives_jupyterlab_its_own_settings_and_make_lab_does_not():
    dry = {t: subprocess.run(["make", "-n", "-B", t], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
           for t in ("lab", "lab-ja")}
    assert (
        f"jupyter/lab-ja.jupyterlab-settings .venv/share/jupyter/lab-ja/{PLUGIN}" in dry["lab-ja"]
    )
    assert "JUPYTERLAB_SETTINGS_DIR=.venv/share/jupyter/lab-ja " in dry["lab-ja"]
    assert "JUPYTERLAB_SETTINGS_DIR" not in dry["lab"]


def test_with_those_settings_jupyterlab_speaks_japanese(tmp_path):
    settings = tmp_path / "settings" / PLUGIN
    settings.parent.mkdir(parents=True)
    shutil.copy(ROOT / "jupyter" / "lab-ja.jupyterlab-settings", settings)
    (tmp_path / "root").mkdir()
    with JupyterLab(tmp_path / "root", tmp_path) as lab:
        chosen = json.loads(lab.api("/lab/api/settings/@jupyterlab/translation-extension:plugin"))
        pack = json.loads(lab.api("/lab/api/translations/ja_JP"))
    assert chosen["settings"]["locale"] == "ja_JP"
    assert pack["data"]["jupyterlab"]["Edit"] == ["編集"]  # the Edit menu
