"""The course on zero-to-jupyterhub: each student's language and, with the relay's roster, their
token.

The hub loads this file from /usr/local/etc/jupyterhub/jupyterhub_config.d/ (config.yaml mounts it;
deploy with `--set-file hub.extraFiles.course_spawn.stringData=workshop/z2jh/course_spawn.py`). It
runs in the chart's hub image, where the course is not installed, so it reads the roster itself.
Settings (config.yaml, hub.extraEnv):
  COURSE_ROSTER     the relay's roster (student,token), mounted from the Secret course-roster;
  without it, no tokens
  COURSE_RELAY_URL  the relay's base URL: a roster student's server gets ANTHROPIC_BASE_URL (the
  relay),
                    ANTHROPIC_API_KEY (their token) and COURSE_LIVE=1, so lesson 13 goes live
                    through the relay
"""
import csv
import os

c = get_config()  # noqa: F821 (given by JupyterHub when it loads this file)

JAPANESE_LESSON_00 = "/lab/tree/notebooks/ja/00_start_here.ipynb"


def roster(path: str) -> dict[str, str]:
    """student -> token, or nothing when the Secret is absent."""
    if not os.path.exists(path):
        return {}
    with open(path, newline="", encoding="utf-8-sig") as f:
        return {row["student"].strip(): row["token"].strip() for row in csv.DictReader(f)}


def before_spawn(spawner) -> None:
    """The language of the profile the student picked (en or ja) and, with a relay, its address and
    their token."""
    language = (spawner.user_options or {}).get("profile") or "en"
    environment = {"COURSE_LANG": language}  # the library speaks it whatever the image's locale
    if language == "ja":
        spawner.default_url = JAPANESE_LESSON_00
    token = TOKENS.get(spawner.user.name)
    if token and os.environ.get("COURSE_RELAY_URL"):
        environment |= {"ANTHROPIC_BASE_URL": os.environ["COURSE_RELAY_URL"],
                        "ANTHROPIC_API_KEY": token, "COURSE_LIVE": "1"}
    spawner.environment = {**spawner.environment, **environment}


TOKENS = roster(os.environ.get("COURSE_ROSTER", "/etc/course/roster.csv"))
c.KubeSpawner.pre_spawn_hook = before_spawn
c.Authenticator.allow_all = not TOKENS  # with a roster, only its students may log in
if TOKENS:
    c.Authenticator.allowed_users = set(TOKENS)
