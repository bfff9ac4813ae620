"""The language JupyterLab shows a student, read from their home as JupyterLab reads it."""
from __future__ import annotations

import os
from importlib.metadata import entry_points
from pathlib import Path
from unittest import mock

import json5
from jupyterlab.commands import get_user_settings_dir


def lab_locale(home: Path) -> str:
    """The locale of JupyterLab's translation setting for a server whose HOME is `home` ("default"
    when none is set), checked to be a language pack installed in this environment."""
    env = {k: v for k,
           v in os.environ.items() if k not in ("JUPYTERLAB_SETTINGS_DIR", "JUPYTER_CONFIG_DIR")}
    with mock.patch.dict(os.environ, {**env, "HOME": str(home)}, clear=True):
        settings = Path(get_user_settings_dir(), "@jupyterlab", "translation-extension",
                        "plugin.jupyterlab-settings")
    if not settings.exists():
        return "default"
    locale = json5.loads(settings.read_text(encoding="utf-8"))["locale"]
    # en is built in
    assert locale in {"en"} | {e.name for e in entry_points(group="jupyterlab.languagepack")}, (
        locale
    )
    return locale
