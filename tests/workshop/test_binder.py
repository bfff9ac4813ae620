"""The Binder configuration, checked with repo2docker's own tooling (no Docker here: it renders,
never builds)."""
from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import json5
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[2]
REPO2DOCKER = shutil.which("repo2docker", path=str(Path(sys.executable).parent))
needs_repo2docker = pytest.mark.skipif(REPO2DOCKER is None,
                                       reason="repo2docker is not installed (test extras)")


@pytest.fixture(scope="module")
def dockerfile() -> str:
    """The Dockerfile repo2docker would build for this repository."""
    done = subprocess.run([REPO2DOCKER, "--no-build", "--no-run", "--debug", str(ROOT)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr


@needs_repo2docker
def test_repo2docker_picks_the_python_buildpack_with_the_binder_folder():
    from repo2docker.app import Repo2Docker
    from repo2docker.buildpacks import PythonBuildPack

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        picked = next(bp for BP in Repo2Docker().buildpacks if (bp := BP(base_image="x")).detect())
        assert type(picked) is PythonBuildPack and picked.binder_dir == "binder"
        assert picked.get_post_build_scripts() == ["binder/postBuild"]
    finally:
        os.chdir(cwd)


@needs_repo2docker
def test_the_rendered_image_installs_the_course_from_the_checkout_then_runs_post_build(dockerfile):
    python = re.search(r"conda environment for python=(\d+\.\d+)", dockerfile).group(1)
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python in SpecifierSet(requires)
    copy_repo = re.search(r"COPY --chown=\S+ src/ \$\{REPO_DIR\}/", dockerfile).start()
    install = dockerfile.index('pip install --no-cache-dir -r "binder/requirements.txt"')
    # after the repo is there: `-e .` works
    assert copy_repo < install < dockerfile.index("RUN ./binder/postBuild")


@needs_repo2docker
def test_binder_requirements_resolve_to_the_dependencies_of_pyproject():
    """Every line is the checkout itself (repo2docker's own reading), so pip installs
    pyproject.toml's dependencies: the very ones this environment got from `pip install -e .`."""
    from repo2docker.utils import is_local_pip_requirement

    lines = [line.split("#", 1)[0].strip()
             for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    lines = [line for line in lines if line]
    assert lines and all(is_local_pip_requirement(line) for line in lines)
    assert {(ROOT / line.removeprefix("-e").strip()).resolve() for line in lines} == {ROOT}
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    installed = [r for r in importlib.metadata.requires("course") if "extra ==" not in r]
    assert sorted(str(Requirement(r)) for r in installed) == sorted(
        str(Requirement(r)) for r in wanted)


def test_post_build_opens_jupyterlab_on_lesson_00(tmp_path):
    prefix = tmp_path / "prefix"
    shim = tmp_path / "bin"
    shim.mkdir()
    # the image's python, for sys.prefix only
    (shim / "python").write_text(f"#!/bin/sh\necho {prefix}\n")
    (shim / "python").chmod(0o755)
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "PATH": f"{shim}:{os.environ['PATH']}"}
    subprocess.run(["bash", "binder/postBuild"], cwd=ROOT, env=env, check=True, timeout=60)
    config = json.loads((home / ".jupyter" / "jupyter_server_config.json").read_text())
    url = config["ServerApp"]["default_url"]
    assert url == "/lab/tree/notebooks/00_start_here.ipynb" and (ROOT / url.removeprefix(
        "/lab/tree/")).is_file()
    if (ROOT / "jupyter" / "overrides.json").exists():
        settings = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
        assert settings.read_text() == (ROOT / "jupyter" / "overrides.json").read_text()


def test_the_image_has_the_japanese_language_pack_that_the_japanese_settings_select():
    """Binder's image (and so the hub's) installs pyproject.toml's dependencies (the test above):
    among them the pack whose locale `make lab-ja` and the Japanese profile select."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {Requirement(r).name for r in dependencies}
    locale = json5.loads((ROOT / "jupyter" / "lab-ja.jupyterlab-settings").read_text())["locale"]
    packs = {e.name: e.dist.name
             for e in importlib.metadata.entry_points(group="jupyterlab.languagepack")}
    assert locale == "ja_JP" and packs[locale] in wanted
