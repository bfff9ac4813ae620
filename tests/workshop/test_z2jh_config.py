"""workshop/z2jh/: the zero-to-jupyterhub values, merged over the chart's defaults as Helm merges
them and validated against the chart's own schema (both copied from the chart), and the hub's spawn
hook run on a student's spawn."""
from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
import yaml
from jupyter_server.services.kernels.kernelmanager import MappingKernelManager
from traitlets.config.loader import PyFileConfigLoader

sys.path.insert(0, str(Path(__file__).parent))
from lab_settings import lab_locale  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
Z2JH = ROOT / "workshop" / "z2jh"
HOOK = Z2JH / "course_spawn.py"


def read(name: str) -> dict:
    return yaml.safe_load((Z2JH / name).read_text(encoding="utf-8"))


def coalesced(defaults: dict, values: dict) -> dict:
    """Helm's merge of a values file over the chart's: maps merge key by key, anything else
    replaces, null deletes."""
    out = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = coalesced(out[key], value)
        else:
            out[key] = value
    return out


def deployed(config: dict) -> dict:
    """What Helm validates: the defaults, config.yaml, then the deploy command's --set-file
    (docs/WORKSHOP.md)."""
    set_file = {
        "hub": {"extraFiles": {"course_spawn": {"stringData": HOOK.read_text(encoding="utf-8")}}}}
    return coalesced(coalesced(read("values.yaml"), config), set_file)


def errors(values: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(read("values.schema.yaml"))
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(values)]


def test_the_config_is_valid_for_the_chart():
    assert errors(deployed(read("config.yaml"))) == []


def test_the_chart_schema_refuses_a_misspelt_key_or_a_forgotten_set_file():
    config = read("config.yaml")
    config["singleuser"]["memory"]["guarantees"] = config["singleuser"]["memory"].pop("guarantee")
    assert any("'guarantees' was unexpected" in e for e in errors(deployed(config)))
    # deployed without the hook's --set-file
    forgot = coalesced(read("values.yaml"), read("config.yaml"))
    assert any(e.startswith("hub.extraFiles.course_spawn") for e in errors(forgot))


def test_students_get_the_binder_image_s_lessons_in_their_language():
    single = read("config.yaml")["singleuser"]
    assert (ROOT / single["defaultUrl"].removeprefix("/lab/tree/")).is_file()
    copy_command = single["lifecycleHooks"]["postStart"]["exec"]["command"][-1]
    copied = re.search(r"for d in ([\w ]+); do", copy_command).group(1).split()
    assert copied == ["notebooks", "exercises"] and all((ROOT / d).is_dir() for d in copied)
    assert [p["slug"] for p in single["profileList"]] == ["en", "ja"]
    culling = single["extraFiles"]["kernel_culling"]["data"]["MappingKernelManager"]
    # real jupyter_server settings
    assert set(culling) <= set(MappingKernelManager.class_trait_names()), culling


@pytest.mark.parametrize("language, locale", [("en", "default"), ("ja", "ja_JP")])
def test_the_japanese_profile_shows_jupyterlab_in_japanese_and_keeps_a_language_the_student_picks(
    tmp_path, language, locale
):
    """The first start's command, run by sh in a home, with the checkout where the image has the
    course."""
    command = read("config.yaml")["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"]
    script = command[-1].replace("/srv/course", str(ROOT))
    home = tmp_path / "home"
    home.mkdir()
    def start():
        subprocess.run([*command[:-1], script], env={"HOME": str(home), "COURSE_LANG": language,
                                                     "PATH": os.environ["PATH"]}, check=True,
                       timeout=60)
    start()
    assert lab_locale(home) == locale and (home / "notebooks").is_dir()
    if language == "ja":
        # picked in the menu
        next(home.rglob("plugin.jupyterlab-settings")).write_text('{"locale": "en"}')
        start()  # the next start
        assert lab_locale(home) == "en"


def test_the_memory_guarantee_covers_a_student_as_measured():
    table = (ROOT / "docs" / "BENCHMARKS.md").read_text().split("## Workshop: a JupyterHub room")[1]
    rows = [line.split("|") for line in table.splitlines() if re.match(r"\| \d+ \| \d+ \|", line)]
    server, kernel = max(int(r[6]) for r in rows), max(int(r[7]) for r in rows)  # resident MB
    memory = read("config.yaml")["singleuser"]["memory"]
    mb = {"M": 1, "G": 1024}
    guarantee, limit = (int(memory[k][:-1]) * mb[memory[k][-1]] for k in ("guarantee", "limit"))
    assert server + kernel <= guarantee < server + 2 * kernel and limit >= server + 5 * kernel


def load_hook(monkeypatch, tmp_path, roster: str | None):
    """The hook file as the hub loads it, with or without the relay's roster."""
    path = tmp_path / "roster.csv"
    if roster is not None:
        path.write_text(roster)
    monkeypatch.setenv("COURSE_ROSTER", str(path))
    monkeypatch.setenv("COURSE_RELAY_URL", "http://course-relay:8765")
    return PyFileConfigLoader(HOOK.name, str(HOOK.parent)).load_config()


def spawned(c, name: str, profile: str | None) -> SimpleNamespace:
    spawner = SimpleNamespace(user=SimpleNamespace(name=name),
                              user_options={"profile": profile} if profile else {},
                              environment={"KEPT": "1"},
                              default_url="/lab/tree/notebooks/00_start_here.ipynb")
    c.KubeSpawner.pre_spawn_hook(spawner)
    return spawner


def test_the_japanese_profile_opens_the_japanese_lesson_00_and_the_library_speaks_japanese(
    monkeypatch, tmp_path):
    c = load_hook(monkeypatch, tmp_path, roster=None)
    assert c.Authenticator.allow_all is True and "allowed_users" not in c.Authenticator
    english, japanese = spawned(c, "ada", None), spawned(c, "ada", "ja")
    assert english.environment == {"KEPT": "1", "COURSE_LANG": "en"}
    assert english.default_url == "/lab/tree/notebooks/00_start_here.ipynb"
    assert japanese.environment == {"KEPT": "1", "COURSE_LANG": "ja"}
    assert (ROOT / japanese.default_url.removeprefix("/lab/tree/")).is_file()


@pytest.mark.parametrize("name", ["ada", "eve"])
def test_a_roster_student_gets_the_relay_and_their_token_and_only_the_roster_logs_in(
    monkeypatch, tmp_path, name):
    c = load_hook(monkeypatch, tmp_path, roster="\ufeffstudent,token\nada, tok-ada\n")
    assert c.Authenticator.allow_all is False and c.Authenticator.allowed_users == {"ada"}
    environment = spawned(c, name, "en").environment
    relay = {"ANTHROPIC_BASE_URL": "http://course-relay:8765", "ANTHROPIC_API_KEY": "tok-ada",
             "COURSE_LIVE": "1"}
    assert environment == {"KEPT": "1", "COURSE_LANG": "en", **(relay if name == "ada" else {})}


def test_the_deploy_commands_in_the_guide_match_the_config():
    guide = (ROOT / "docs" / "WORKSHOP.md").read_text().split("## Past one machine")[1].split(
        "\n## ")[0]
    values = deployed(read("config.yaml"))
    single = values["singleuser"]
    image = re.search(r"--image-name (\S+)", guide).group(1)
    assert (
        image == f"{single['image']['name']}:{single['image']['tag']}"
        and f"docker push {image}" in guide
    )
    # the chart runs servers as this uid
    assert int(re.search(r"--user-id (\d+)", guide).group(1)) == single["uid"]
    repo = re.search(r"--target-repo-dir (\S+)", guide).group(1)
    assert f'"{repo}/$d"' in single["lifecycleHooks"]["postStart"]["exec"]["command"][-1]
    hook = re.search(r"--set-file hub\.extraFiles\.(\w+)\.stringData=(\S+)", guide)
    assert hook.group(1) in values["hub"]["extraFiles"] and (ROOT / hook.group(2)) == HOOK
    secret = re.search(r"create secret generic (\S+) --from-file=(\S+)", guide)
    volume = next(v for v in values["hub"]["extraVolumes"]
                  if v["secret"]["secretName"] == secret.group(1))
    mount = next(m for m in values["hub"]["extraVolumeMounts"] if m["name"] == volume["name"])
    assert values["hub"]["extraEnv"]["COURSE_ROSTER"] == f"{mount['mountPath']}/{secret.group(2)}"
