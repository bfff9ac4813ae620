"""Shared fixtures: no network in tests, the course speaking English whatever the machine's locale,
and the local API on both of its mounts; tests that need a system package this machine lacks skip,
saying which (tests/system_packages.py)."""
from __future__ import annotations

import collections
import functools
import ipaddress
import json
import os
import socket

import pytest
from file_order import SECONDS, longest_first, took
from hypothesis import HealthCheck, settings
from system_packages import PACKAGES

from course.api import LocalAPI, Server
from course.client import make_client
from course.grading.classroom.sandbox.confinement import Confinement

# a Japanese locale would make the library speak Japanese; the language tests choose theirs
# (tests/i18n)
os.environ["COURSE_LANG"] = "en"

# property tests judge what is generated, never how fast: a loaded machine must not fail them (time
# goes to benchmarks)
settings.register_profile("course", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("course")


@functools.cache
def unmet() -> dict[str, str]:
    """marker -> why the tests it marks cannot run here, for every system package that is missing or
    does not work."""
    reasons = {p.marker: p.reason for p in PACKAGES if not p.present()}
    if "bwrap" not in reasons and (mode := Confinement.detect().mode) not in (
        "bwrap",
        "bwrap-user",
    ):
        reasons["bwrap"] = ("bubblewrap is installed but cannot create namespaces here (the "
                            f"grader would use isolation {mode}): run the tests where it can, e.g. "
                            "in a container started with "
                            "--privileged")
    return reasons


def pytest_report_header(config) -> list[str]:
    return [f"skipping the tests marked {marker}: {reason}" for marker, reason in unmet().items()]


def pytest_terminal_summary(terminalreporter) -> None:
    """What a test records as its "summary" (the mutation score), printed after the run, from any
    xdist worker."""
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get(
        "failed", []
    ):
        for name, value in getattr(report, "user_properties", []):
            if name == "summary" and report.when == "call":
                terminalreporter.write_line(value)


def pytest_collection_modifyitems(config, items) -> None:
    for marker, reason in unmet().items():
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=reason))
    items.sort(key=longest_first(took()))  # stable: a file's tests keep their order


_seconds: collections.Counter = collections.Counter()


def pytest_runtest_logreport(report) -> None:
    _seconds[report.nodeid.split("::")[0]] += report.duration


def pytest_sessionfinish(session) -> None:
    """After a run of every test on workers (make test's suite), each file's seconds, for the next
    run's order."""
    option = session.config.option
    # every test of each file ran (not make check's part)
    whole = not option.keyword and not option.markexpr
    if (
        getattr(option, "numprocesses", None)
        and not hasattr(session.config, "workerinput")
        and _seconds
        and whole
    ):
        SECONDS.parent.mkdir(exist_ok=True)
        SECONDS.write_text(json.dumps({**took(), **_seconds}, indent=0, sort_keys=True))


class NetworkBlocked(OSError):
    """A test tried to reach a host other than this machine."""


def _loopback(host) -> bool:
    if host in (None, "localhost") or not isinstance(host, str):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True, scope="session")
def no_network():
    """Tests never need the network: resolving or connecting to a non-loopback host raises."""
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def getaddrinfo(host, *args, **kwargs):
        if not _loopback(host):
            raise NetworkBlocked(f"tests may not reach the network (asked to resolve {host!r})")
        return real_getaddrinfo(host, *args, **kwargs)

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(address[0]):
            raise NetworkBlocked("tests may not reach the network (asked to connect to "
                                 f"{address!r})")
        return real_connect(sock, address)

    socket.getaddrinfo, socket.socket.connect = getaddrinfo, connect
    yield
    socket.getaddrinfo, socket.socket.connect = real_getaddrinfo, real_connect


@pytest.fixture(params=["in_process", "loopback"])
def mount(request):
    """connect(api, **options): the genuine SDK client talking to `api` in-process or over loopback
    HTTP."""
    servers: list[Server] = []

    def connect(api: LocalAPI, **options):
        if request.param == "in_process":
            return make_client(api, **options)
        servers.append(Server(api).start())
        return make_client(base_url=servers[-1].base_url, **options)

    yield connect
    for server in servers:
        server.stop()
