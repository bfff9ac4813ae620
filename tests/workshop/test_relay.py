"""The key relay, through the genuine SDK as the student's client, with the course's local API as
the upstream."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import anthropic
import httpx2
import pytest

from course.api import LocalAPI, Rules, Server, Turn
from course.api.server import _HTTPServer
from course.client import MODEL, make_client
from course.pricing import cost_usd
from course.relay import Ledger, Relay, read_roster

ROOT = Path(__file__).resolve().parents[2]
KEY = "instructor-key-0123456789-not-a-real-key"  # the instructor's key, as the upstream sees it
ROSTER = {"tok-ada-1111": "ada", "tok-bob-2222": "bob"}


def echo(conversation):
    return Turn([{"type": "text", "text": f"You said: {conversation.prompt}"}])


class Upstream:
    """The local API on loopback, also keeping the headers of every request it received."""

    def __init__(self, api: LocalAPI):
        self.api = api
        self.headers: list[dict] = []

    def handle(self, method, path, headers, body):
        self.headers.append({k.lower(): v for k, v in headers.items()})
        return self.api.handle(method, path, headers, body)


@pytest.fixture
def upstream():
    up = Upstream(LocalAPI(Rules([], otherwise=echo)))
    server = Server(up).start()
    up.base_url = server.base_url
    yield up
    server.stop()


@pytest.fixture
def room(upstream, tmp_path):
    """start(**options) -> (relay, log lines); the relay stops after the test."""
    started = []

    def start(budget_usd=1.0, per_minute=100, timeout=30.0, clock=None, upstream_url=None):
        log: list[str] = []
        extra = {"clock": clock} if clock else {}
        ledger = Ledger(ROSTER, budget_usd, per_minute, tmp_path / "usage.csv", **extra)
        relay = Relay(ledger, KEY, upstream_url or upstream.base_url, timeout=timeout,
                      log=log.append).start()
        started.append(relay)
        return relay, log

    yield start
    for relay in started:
        relay.stop()


def student(relay, token="tok-ada-1111", **options) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=token, base_url=relay.base_url, **options)


def ask(client, text="hello", **options):
    return client.messages.create(model=MODEL, max_tokens=64,
                                  messages=[{"role": "user", "content": text}], **options)


def usage_rows(relay) -> dict[str, dict]:
    with relay.ledger.path.open(newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def test_a_student_request_is_forwarded_and_its_usage_priced_into_the_csv(room, upstream):
    relay, _ = room()
    message = ask(student(relay), "what is 2+2?")
    assert message.content[0].text == "You said: what is 2+2?"
    sent = upstream.api.requests[-1].response["usage"]
    row = usage_rows(relay)["ada"]
    assert int(row["requests"]) == 1 and int(row["errors"]) == 0 and int(row["refused"]) == 0
    assert (
        int(row["input_tokens"]) == sent["input_tokens"] > 0
        and int(row["output_tokens"]) == sent["output_tokens"]
    )
    assert (
        float(row["usd"]) == pytest.approx(cost_usd(MODEL, sent), abs=1e-6)
        and float(row["usd"]) > 0
    )
    assert usage_rows(relay)["bob"]["requests"] == "0"


def test_a_streamed_answer_passes_through_and_is_metered_from_its_events(room, upstream):
    relay, _ = room()
    with student(relay).messages.stream(
        model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "stream me"}]
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "You said: stream me"
    sent = upstream.api.requests[-1].response["usage"]
    assert final.usage.output_tokens == sent["output_tokens"]
    row = usage_rows(relay)["ada"]
    assert (int(row["input_tokens"]), int(row["output_tokens"])) == (
        sent["input_tokens"],
        sent["output_tokens"],
    )
    assert float(row["usd"]) == pytest.approx(cost_usd(MODEL, sent), abs=1e-6)


def test_a_stream_reaches_the_student_while_the_upstream_is_still_sending(room, tmp_path):
    """The upstream sends message_start and waits until the student has it, then the rest, and waits
    again before it ends the stream: a relay that buffers deadlocks, and one that charges only at
    the end is behind the student."""
    seen, done = threading.Event(), threading.Event()
    api = LocalAPI(Rules([], otherwise=echo))

    class Slow(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers["content-length"]))
            events = b"".join(
                api.handle("POST", "/v1/messages", dict(self.headers), body).body
            ).split(b"\n\n")
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(events[0] + b"\n\n")
            seen.wait(10)
            self.wfile.write(b"\n\n".join(events[1:]))
            done.wait(10)

        def log_message(self, *args):
            pass

    slow = _HTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=slow.serve_forever, daemon=True).start()
    try:
        relay, _ = room(upstream_url=f"http://127.0.0.1:{slow.server_address[1]}", timeout=5)
        with student(relay, max_retries=0).messages.stream(
                model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
            events = iter(stream)
            assert next(events).type == "message_start" and not seen.is_set()
            seen.set()
            # stops reading there: the stream is still open
            assert any(e.type == "message_stop" for e in events)
            charged = usage_rows(relay)["ada"]
            done.set()
            assert stream.get_final_message().content[0].text == "You said: hi"
    finally:
        seen.set()
        done.set()
        slow.shutdown()
        slow.server_close()
    # message_delta's count, not message_start's, and before the end
    assert int(charged["output_tokens"]) > 1


def test_an_unknown_token_gets_401_and_nothing_is_forwarded(room, upstream):
    relay, _ = room()
    with pytest.raises(anthropic.AuthenticationError) as e:
        ask(student(relay, "tok-mallory"))
    assert e.value.body["error"]["type"] == "authentication_error" and "roster" in e.value.message
    assert upstream.api.requests == []


def test_the_upstream_gets_the_instructor_key_and_never_a_student_token(room, upstream):
    relay, _ = room()
    ask(student(relay, "tok-ada-1111"))
    ask(anthropic.Anthropic(api_key="tok-bob-2222", base_url=relay.base_url))
    with student(relay, "tok-bob-2222").messages.stream(
        model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "x"}]
    ) as s:
        s.get_final_message()
    assert len(upstream.headers) == 3
    for headers in upstream.headers:
        assert headers.get("x-api-key") == KEY and "authorization" not in headers
        assert not any(token in value for value in headers.values() for token in ROSTER)


def test_the_instructor_key_appears_in_no_response_log_or_file(room, upstream, tmp_path):
    relay, log = room(budget_usd=0.000001)
    client = student(relay, max_retries=0)
    http = httpx2.Client(base_url=relay.base_url)
    upstream.api.inject("server_error")
    # 500
    replies = [http.post("/v1/messages", headers={"x-api-key": "tok-ada-1111"},
                         json={"model": MODEL}),
               http.post("/v1/messages", headers={"x-api-key": "wrong"}, content=b"{}"),
               http.post("/v1/messages", headers={"x-api-key": "tok-bob-2222"},
                         content=b"not json"),
               http.post("/v1/messages", headers={"x-api-key": "tok-bob-2222"},
                         json={"model": MODEL, "max_tokens": 8,
                               "messages": [{"role": "user", "content": "a"}]}),
               # over budget
               http.post("/v1/messages", headers={"x-api-key": "tok-bob-2222"},
                         json={"model": MODEL})]
    assert [r.status_code for r in replies] == [500, 401, 400, 200, 402]
    ask(client)
    with pytest.raises(anthropic.APIStatusError):
        ask(client)
    everything = [str(relay), *log] + [f"{r.headers} {r.text}" for r in replies]
    everything += [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert log and all(KEY not in text for text in everything)
    assert KEY not in repr(relay) and KEY not in repr(vars(relay.ledger))


def test_a_spent_budget_gets_an_error_that_says_so_and_nothing_is_forwarded(room, upstream):
    relay, _ = room(budget_usd=0.000001)
    client = student(relay)
    ask(client)  # the budget is checked before a request: this one overshoots it
    forwarded = len(upstream.api.requests)
    with pytest.raises(anthropic.APIStatusError) as e:
        ask(client)
    assert e.value.status_code == 402 and e.value.body["error"]["type"] == "billing_error"
    assert "budget" in e.value.message and "ada" in e.value.message
    assert len(upstream.api.requests) == forwarded == 1
    ask(student(relay, "tok-bob-2222"))  # another student's budget is their own
    row = usage_rows(relay)["ada"]
    assert (row["requests"], row["refused"]) == ("1", "1")


def test_a_student_over_the_rate_limit_gets_429_with_retry_after_and_nothing_is_forwarded(
    room, upstream):
    now = [1000.0]
    relay, _ = room(per_minute=2, clock=lambda: now[0])
    client = student(relay, max_retries=0)
    ask(client)
    ask(client)
    with pytest.raises(anthropic.RateLimitError) as e:
        ask(client)
    assert 59 <= float(e.value.response.headers["retry-after-ms"]) / 1000 <= 60
    assert len(upstream.api.requests) == 2
    ask(student(relay, "tok-bob-2222", max_retries=0))  # the limit is per student
    now[0] += 61
    ask(client)
    assert (
        usage_rows(relay)["ada"]["requests"] == "3" and usage_rows(relay)["ada"]["refused"] == "1"
    )


@pytest.mark.parametrize("body, wording", [
    (b"{not json", "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    (json.dumps({"max_tokens": 8, "messages": []}).encode(), "model: Field required"),
    (json.dumps({"model": "claude-unpriced-9", "max_tokens": 8, "messages": []}).encode(),
     "no price"),
    (json.dumps({"model": MODEL, "max_tokens": 8, "messages": [], "stream": "yes"}).encode(),
     "stream"),
])
def test_a_malformed_request_gets_a_clear_400_and_nothing_is_forwarded(
    room, upstream, body, wording
):
    relay, _ = room()
    reply = httpx2.post(f"{relay.base_url}/v1/messages", headers={"x-api-key": "tok-ada-1111"},
                        content=body)
    assert reply.status_code == 400 and reply.json()["error"]["type"] == "invalid_request_error"
    assert wording in reply.json()["error"]["message"]
    assert upstream.api.requests == [] and usage_rows(relay)["ada"]["refused"] == "1"


def test_only_the_messages_endpoints_are_forwarded(room, upstream):
    relay, _ = room()
    reply = httpx2.get(f"{relay.base_url}/v1/models", headers={"x-api-key": "tok-ada-1111"})
    assert reply.status_code == 404 and reply.json()["error"]["type"] == "not_found_error"
    assert student(relay).messages.count_tokens(model=MODEL,
                                                messages=[{"role": "user", "content": "hi"}])
    assert [r.path for r in upstream.api.requests] == ["/v1/messages/count_tokens"]


@pytest.mark.parametrize("fault, error", [("rate_limit", anthropic.RateLimitError),
                                          ("overloaded", anthropic.OverloadedError),
                                          ("server_error", anthropic.InternalServerError)])
def test_upstream_errors_reach_the_student_in_the_api_shape_with_retry_headers(
    room, upstream, fault, error):
    relay, _ = room()
    upstream.api.inject(fault, retry_after=0.2)
    with pytest.raises(error) as e:
        ask(student(relay, max_retries=0))
    assert e.value.body["type"] == "error" and e.value.response.headers["retry-after-ms"] == "200"
    row = usage_rows(relay)["ada"]
    assert (row["requests"], row["errors"], row["usd"]) == ("1", "1", "0.000000")


def test_the_sdk_retries_through_the_relay_as_it_would_live(room, upstream):
    relay, _ = room()
    upstream.api.inject("overloaded", retry_after=0.05).inject("rate_limit", retry_after=0.05)
    assert ask(student(relay, max_retries=2)).content[0].text == "You said: hello"
    assert [r.status for r in upstream.api.requests] == [529, 429, 200]
    row = usage_rows(relay)["ada"]
    assert (row["requests"], row["errors"]) == ("3", "2")


def test_an_upstream_that_does_not_answer_in_time_is_a_504_the_sdk_retries(room, upstream):
    relay, _ = room(timeout=0.3)
    upstream.api.inject("slow", seconds=1.0)
    with pytest.raises(anthropic.APIStatusError) as e:
        ask(student(relay, max_retries=0))
    assert e.value.status_code == 504 and e.value.body["error"]["type"] == "timeout_error"
    upstream.api.inject("slow", seconds=1.0)
    assert ask(student(relay, max_retries=1)).content[0].text == "You said: hello"


def test_an_unreachable_upstream_is_a_502_in_the_api_shape(room):
    relay, _ = room(upstream_url="http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(anthropic.InternalServerError) as e:
        ask(student(relay, max_retries=0))
    assert e.value.status_code == 502 and "could not be reached" in e.value.message


def test_an_upstream_that_refuses_the_instructor_key_is_not_blamed_on_the_student(room, upstream):
    relay, _ = room()
    # no key: 401
    upstream.api.handle = lambda *a: LocalAPI.handle(upstream.api, "POST", "/v1/messages", {},
                                                     b"{}")
    with pytest.raises(anthropic.InternalServerError) as e:
        ask(student(relay, max_retries=2))
    assert "instructor" in e.value.message and len(upstream.headers) == 1  # x-should-retry: false


def test_concurrent_students_are_counted_once_each_and_the_csv_is_always_whole(room, upstream):
    relay, _ = room()

    def work(token):
        client = student(relay, token)
        for k in range(5):
            ask(client, f"{token} {k}")

    seen: list[int] = []  # rows in each read of the CSV while the students work
    done = threading.Event()

    def read():
        while not done.is_set():
            seen.append(len(usage_rows(relay)))

    threads = [threading.Thread(target=work, args=(t,)) for t in ROSTER for _ in range(3)]
    reader = threading.Thread(target=read)
    reader.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join()
    assert seen and set(seen) == {len(ROSTER)}  # the instructor never reads half a file
    rows = usage_rows(relay)
    for token, name in ROSTER.items():
        sent = [r.response["usage"] for r in upstream.api.requests
                if r.body["messages"][0]["content"].startswith(token)]
        assert int(rows[name]["requests"]) == len(sent) == 15
        assert int(rows[name]["output_tokens"]) == sum(u["output_tokens"] for u in sent)


def test_a_restarted_relay_carries_on_from_its_csv(room, upstream):
    relay, _ = room(budget_usd=0.000001)
    ask(student(relay))
    relay.stop()
    again, _ = room(budget_usd=0.000001)
    with pytest.raises(anthropic.APIStatusError) as e:
        ask(student(again))
    assert e.value.status_code == 402 and len(upstream.api.requests) == 1


def test_make_client_live_honours_anthropic_base_url(room, upstream, monkeypatch):
    relay, _ = room()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", relay.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "tok-bob-2222")
    assert ask(make_client(live=True)).content[0].text == "You said: hello"
    assert usage_rows(relay)["bob"]["requests"] == "1"


@pytest.mark.parametrize("text, wording",
                         [("name,key\na,b\n", "header"), ("student,token\na,\n", "line 2"),
                                           ("student,token\na,t1\nb,t1\n", "also"),
                          ("student,token\n", "no students"),
                                           ("student,token\na,t1\na,t2\n", "twice")])
def test_a_bad_roster_is_refused_with_the_line_at_fault(tmp_path, text, wording):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=wording):
        read_roster(path)


def test_the_command_prints_its_url_and_relays(upstream, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,token\nada,tok-ada-1111\n")
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "course", "relay", "--upstream", upstream.base_url, "--roster",
               str(roster), "--budget-usd", "0.5", "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        client = anthropic.Anthropic(api_key="tok-ada-1111", base_url=url)
        assert ask(client).content[0].text == "You said: hello"
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "1 students" in err and KEY not in err
    assert (tmp_path / "roster.csv.usage.csv").read_text().splitlines()[1].startswith("ada,1,")


def test_the_command_refuses_to_start_without_the_instructor_key(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student,token\nada,tok\n")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "course", "relay", "--roster", str(roster),
                           "--budget-usd", "1"],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "ANTHROPIC_API_KEY" in done.stderr
