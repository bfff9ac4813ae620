"""JupyterHub for a workshop room on one machine: `jupyterhub -f workshop/jupyterhub_config.py`.

Run it from the environment the course is installed in (`pip install jupyterhub -e .` from the
course's checkout); every student's server and kernel run from that same environment, so the course
is there for everyone. On first login the lessons and exercises are copied into the student's home;
JupyterLab opens on lesson 00.

Settings come from the environment (see docs/WORKSHOP.md):
  WORKSHOP_PASSWORD        the room's password (8+ characters), given out in the room; required
  WORKSHOP_ADMIN_PASSWORD  the instructor's password (32+ characters), for the admin user
  WORKSHOP_ADMIN
  WORKSHOP_ADMIN           the instructor's user name (default: instructor)
  WORKSHOP_URL             where the hub listens (default: http://127.0.0.1:8000)
  WORKSHOP_STATE           the hub's database, cookie secret and the students' homes (default:
  /srv/workshop)
  WORKSHOP_ROSTER          optional: the relay's roster (student,token); only its students may log
  in, and each
  WORKSHOP_RELAY_URL         server gets ANTHROPIC_BASE_URL=the relay, ANTHROPIC_API_KEY=the
  student's token and
                             COURSE_LIVE=1 (lesson 13 then runs live, through the relay)
  WORKSHOP_PROXY           the configurable-http-proxy command (default: configurable-http-proxy on
  PATH)
  WORKSHOP_LANG            ja: the Japanese edition (JupyterLab opens notebooks/ja in Japanese, the
  library speaks
                             Japanese)
"""
import csv
import os
import shutil
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (given by JupyterHub when it loads this file)

# the course's checkout: what is copied into each home
COURSE = Path(__file__).resolve().parent.parent
COPIED = ("notebooks", "exercises")  # folders a student gets on first login
BIN = Path(sys.executable).parent  # the environment the hub runs in, with the course installed
STATE = Path(os.environ.get("WORKSHOP_STATE", "/srv/workshop"))
JAPANESE = os.environ.get("WORKSHOP_LANG") == "ja"  # the room's edition


def roster() -> dict[str, str]:
    """student -> token from WORKSHOP_ROSTER, or nothing without one."""
    path = os.environ.get("WORKSHOP_ROSTER")
    if not path:
        return {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        return {row["student"].strip(): row["token"].strip() for row in csv.DictReader(f)}


def copy_course(home: Path) -> None:
    """Copy the lessons and exercises into a student's home, never over a student's own files."""
    home.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (COURSE / name).is_dir() and not (home / name).exists():
            shutil.copytree(COURSE / name, home / name)


def choose_japanese_lab(home: Path) -> None:
    """JupyterLab's own menus in Japanese (the language pack the course installs), as `make lab-ja`
    has them: the setting goes into the student's JupyterLab settings once, so a language they pick
    later stays theirs."""
    target = (
        home
        / ".jupyter"
        / "lab"
        / "user-settings"
        / "@jupyterlab"
        / "translation-extension"
        / "plugin.jupyterlab-settings"
    )
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(COURSE / "jupyter" / "lab-ja.jupyterlab-settings", target)


def before_spawn(spawner) -> None:
    """Each time a student's server starts: the course in their home, JupyterLab in the room's
    language and, with a relay, its address and their token."""
    copy_course(Path(spawner.home_dir))
    if JAPANESE:
        choose_japanese_lab(Path(spawner.home_dir))
    token = TOKENS.get(spawner.user.name)
    if token and os.environ.get("WORKSHOP_RELAY_URL"):
        spawner.environment = {**spawner.environment,
                               "ANTHROPIC_BASE_URL": os.environ["WORKSHOP_RELAY_URL"],
                               # lesson 13 goes live
                               "ANTHROPIC_API_KEY": token, "COURSE_LIVE": "1"}


def install_lab_settings() -> None:
    """The course's JupyterLab settings (no news popup) for every student, as `make lab` has
    them."""
    source = COURSE / "jupyter" / "overrides.json"
    target = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    if source.exists() and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


TOKENS = roster()
install_lab_settings()

c.JupyterHub.bind_url = os.environ.get("WORKSHOP_URL", "http://127.0.0.1:8000")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
c.ConfigurableHTTPProxy.command = [os.environ.get("WORKSHOP_PROXY", "configurable-http-proxy")]

# one room password; each student picks a name (or one from the roster)
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ.get("WORKSHOP_PASSWORD")
c.SharedPasswordAuthenticator.admin_password = os.environ.get("WORKSHOP_ADMIN_PASSWORD")
c.Authenticator.admin_users = {os.environ.get("WORKSHOP_ADMIN", "instructor")}
if TOKENS:
    c.Authenticator.allowed_users = set(TOKENS)
else:
    c.Authenticator.allow_all = True

# every student's server runs as the hub's user, from the hub's environment, in a home of its own:
# no isolation between students (fine for a day's room whose only secret, the API key, stays with
# the relay; see docs/WORKSHOP.md)
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "homes" / "{username}")
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = f"/lab/tree/notebooks/{'ja/' if JAPANESE else ''}00_start_here.ipynb"
if JAPANESE:
    c.Spawner.environment = {"COURSE_LANG": "ja"}
c.Spawner.pre_spawn_hook = before_spawn
# a room logs in at once: give a busy machine time to start every server
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 120
c.JupyterHub.concurrent_spawn_limit = 200
# a kernel idle for 30 minutes is stopped, even with its notebook open (each lesson opened starts a
# kernel of ~170 MB): the room's memory goes to the lesson being worked on; its notebook stays, Run
# All brings it back
c.Spawner.args = ["--MappingKernelManager.cull_idle_timeout=1800",
                  "--MappingKernelManager.cull_interval=300",
                  "--MappingKernelManager.cull_connected=True"]
# Jupyter refuses root unless told (containers, CI); in a room, run the hub as a plain user
if os.getuid() == 0:
    c.Spawner.args.append("--allow-root")
