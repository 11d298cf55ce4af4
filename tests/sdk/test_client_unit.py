"""The SDK without a server: retries (exponential backoff with full jitter, Retry-After honoured, bounded by
attempts and a deadline, non-idempotent writes retried only when certainly not carried out), the error body
mapped to typed errors, the cursor followed on the client's own base URL, and configuration loading."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pinconsole_sdk import (
    Client,
    ConfigError,
    ConflictError,
    ConnectionFailed,
    Forbidden,
    InvalidError,
    NotFound,
    RateLimited,
    RetryPolicy,
    ServerError,
    Unauthenticated,
    Unavailable,
    load_config,
)
from pinconsole_sdk.errors import ApiError, error_from_response, parse_retry_after

BASE = "https://portal.test"
WORKLOAD = {
    "apiVersion": "pincompute.io/v1",
    "kind": "PinApp",
    "name": "web",
    "project": "ads",
    "tier": "OnDemand",
    "labels": {},
    "annotations": {},
    "spec": {"replicas": 2},
    "version": "3",
    "admission": {"admitted": True, "reason": "Admitted", "message": "fits"},
    "status": {
        "state": "running",
        "reason": "",
        "phase": "Running",
        "ready": 2,
        "desired": 2,
        "clusters": ["member-a"],
        "conditions": [],
    },
    "shards": [
        {
            "cluster": "member-a",
            "zone": "local-1a",
            "replicas": 2,
            "ready": 2,
            "state": "Ready",
            "message": "",
            "lastSeen": None,
            "unreachableSince": None,
        }
    ],
    "createdAt": "2026-11-22T00:00:00Z",
    "deleting": False,
}


def body(status: int, code: str = "x", message: str = "no", fields: Any = ()) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, "fields": list(fields), "request_id": "r-1"}}


class Script:
    """A fake transport answering from a list: an ``httpx.Response`` or an exception to raise, in order."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make(script: Script, policy: RetryPolicy | None = None, rng: float = 0.0, clock: Any = None) -> Any:
    sleeps: list[float] = []
    client = Client(
        BASE,
        "pct_test",
        transport=httpx.MockTransport(script),
        retry=policy or RetryPolicy(attempts=4, base=0.5, cap=4.0),
        sleep=sleeps.append,
        rng=lambda: rng,
        clock=clock or (lambda: 0.0),
        env={},
    )
    return client, sleeps


def ok(data: Any = None, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=WORKLOAD if data is None else data)


def err(status: int, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
    return httpx.Response(status, json=body(status, **kw), headers=headers)


# --- retries ---------------------------------------------------------------------------------------------


def test_a_429_waits_the_retry_after_then_succeeds():
    script = Script(err(429, {"Retry-After": "7"}, code="throttled"), ok())
    client, sleeps = make(script)

    assert client.get("ads", "PinApp", "web").name == "web"
    assert sleeps == [7.0] and len(script.requests) == 2


def test_backoff_is_exponential_with_full_jitter_and_capped():
    script = Script(*[err(502)] * 4, ok())
    client, sleeps = make(script, RetryPolicy(attempts=5, base=0.5, cap=2.0), rng=1.0)  # the ceiling of each draw

    client.get("ads", "PinApp", "web")

    assert sleeps == [0.5, 1.0, 2.0, 2.0]
    half = RetryPolicy(base=1.0, cap=100.0)
    assert [half.backoff(n, lambda: 0.5) for n in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert half.delay(0, 3.0, lambda: 0.1) == 3.0 and half.delay(5, 3.0, lambda: 1.0) == 32.0


def test_attempts_are_bounded_and_the_last_error_is_raised():
    script = Script(*[err(503, {"Retry-After": "1"}, code="unavailable")] * 3)
    client, sleeps = make(script, RetryPolicy(attempts=3))

    with pytest.raises(Unavailable) as raised:
        client.pause("ads", "pinapps", "web")

    assert len(script.requests) == 3 and sleeps == [1.0, 1.0]
    assert raised.value.retry_after == 1.0 and raised.value.request_id == "r-1"


def test_a_retry_after_over_the_bound_or_past_the_deadline_is_not_waited_for():
    client, sleeps = make(Script(err(429, {"Retry-After": "3600"})), RetryPolicy(max_retry_after=60))
    with pytest.raises(RateLimited):
        client.get("ads", "PinApp", "web")
    assert sleeps == []

    now = [0.0]
    script = Script(err(503, {"Retry-After": "10"}), err(503, {"Retry-After": "10"}), ok())

    def sleep_and_advance(seconds: float) -> None:
        now[0] += seconds

    client = Client(
        BASE,
        "t",
        transport=httpx.MockTransport(script),
        retry=RetryPolicy(attempts=10, deadline=15.0),
        sleep=sleep_and_advance,
        clock=lambda: now[0],
        rng=lambda: 0.0,
        env={},
    )
    with pytest.raises(Unavailable):
        client.get("ads", "PinApp", "web")
    assert now[0] == 10.0 and len(script.requests) == 2  # a second 10 s wait would end past 15 s


def test_connection_errors_are_retried_then_raised_as_connection_failed():
    request = httpx.Request("GET", BASE)
    script = Script(httpx.ConnectError("refused", request=request), httpx.ReadTimeout("slow", request=request), ok())
    client, sleeps = make(script)
    assert client.get("ads", "PinApp", "web").version == "3" and len(sleeps) == 2

    client, _ = make(Script(*[httpx.ConnectError("refused", request=request)] * 4))
    with pytest.raises(ConnectionFailed, match="ConnectError"):
        client.list_workloads()


def test_a_restart_is_retried_only_when_it_certainly_was_not_carried_out():
    request = httpx.Request("POST", BASE)
    for answer in (err(500), httpx.ReadTimeout("slow", request=request)):
        client, sleeps = make(Script(answer, ok()))
        with pytest.raises((ServerError, ConnectionFailed)):
            client.restart("ads", "PinApp", "web")
        assert sleeps == []

    script = Script(err(429, {"Retry-After": "2"}), httpx.ConnectError("refused", request=request), err(503), ok())
    client, sleeps = make(script)
    assert client.restart("ads", "PinApp", "web").name == "web"
    assert len(sleeps) == 3 and sleeps[0] == 2.0


def test_client_errors_are_never_retried():
    for status in (400, 401, 403, 404, 409):
        client, sleeps = make(Script(err(status)))
        with pytest.raises(ApiError):
            client.get("ads", "PinApp", "web")
        assert sleeps == []


# --- errors ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, InvalidError),
        (401, Unauthenticated),
        (403, Forbidden),
        (404, NotFound),
        (409, ConflictError),
        (429, RateLimited),
        (503, Unavailable),
        (500, ServerError),
        (422, ApiError),
    ],
)
def test_each_status_is_its_typed_error(status, cls):
    error = error_from_response(status, body(status, code="c", message="m"), {})

    assert type(error) is cls and error.status == status and (error.code, error.message) == ("c", "m")
    assert error.request_id == "r-1"


def test_an_invalid_answer_names_each_field_and_a_conflict_both_versions():
    fields = [{"path": "spec.replicas", "message": "must be at least 0"}]
    invalid = error_from_response(400, body(400, "invalid", "bad", fields))
    assert isinstance(invalid, InvalidError)
    assert [(f.path, f.message) for f in invalid.fields] == [("spec.replicas", "must be at least 0")]
    assert "spec.replicas: must be at least 0" in str(invalid)

    script = Script(err(409, code="conflict", message="changed", fields=[{"path": "version", "message": "is 9"}]))
    client, _ = make(script)
    with pytest.raises(ConflictError) as raised:
        client.scale("ads", "PinApp", "web", 3, if_match="4")
    assert (raised.value.sent_version, raised.value.live_version) == ("4", "9")
    assert script.requests[0].headers["If-Match"] == '"4"'
    assert json.loads(script.requests[0].content) == {"replicas": 3}


def test_an_answer_that_is_not_the_error_body_still_maps_by_status():
    client, _ = make(Script(httpx.Response(502, text="<html>bad gateway</html>")), RetryPolicy(attempts=1))

    with pytest.raises(ServerError) as raised:
        client.get("ads", "PinApp", "web")

    assert raised.value.status == 502 and "bad gateway" in raised.value.message


def test_retry_after_as_seconds_or_an_http_date():
    assert parse_retry_after("12") == 12.0 and parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: no wait


# --- requests -------------------------------------------------------------------------------------------------


def test_the_list_follows_the_cursor_on_the_clients_own_base_url():
    page1 = {"next": "https://elsewhere.test/api/v1/workloads/?cursor=abc&limit=1", "problems": [], "results": []}
    page1["results"] = [WORKLOAD]
    page2 = {"next": None, "problems": ["member-b: not synced"], "results": [{**WORKLOAD, "name": "api"}]}
    script = Script(ok(page1), ok(page2))
    client, _ = make(script)

    found = client.list_workloads(project="ads", kind="pinapp", page_size=1)

    assert [w.name for w in found] == ["web", "api"] and found.problems == ["member-b: not synced"]
    first, second = script.requests
    assert str(first.url) == f"{BASE}/api/v1/projects/ads/workloads/?kind=PinApp&limit=1"
    assert second.url.host == "portal.test" and second.url.params["cursor"] == "abc"
    assert first.headers["Authorization"] == "Bearer pct_test"


def test_a_workload_round_trips_through_its_dataclass():
    client, _ = make(Script(ok()))
    workload = client.get("ads", "PinApp", "web")

    assert workload.to_dict() == WORKLOAD
    assert workload.status.state == "running" and workload.shards[0].cluster == "member-a"
    assert workload.document() == {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": "web"},
        "spec": {"replicas": 2},
    }


def test_apply_puts_the_document_and_tells_created_configured_and_unchanged():
    moved = {**WORKLOAD, "version": "4"}
    labelled = {**WORKLOAD, "labels": {"app": "web"}}
    script = Script(err(404), ok(status=201), ok(), ok(), ok(), ok(moved), ok(), ok(labelled))
    client, _ = make(script)
    doc = {"apiVersion": "pincompute.io/v1", "kind": "pinapp", "metadata": {"name": "web"}, "spec": {"replicas": 2}}

    created = client.apply(doc, "ads")
    unchanged = client.apply(WORKLOAD)  # a representation (get -o yaml) applied back

    assert (created.created, created.verb) == (True, "created")
    assert (unchanged.created, unchanged.unchanged, unchanged.verb) == (False, True, "unchanged")
    assert client.apply(doc, "ads").verb == "configured"  # the version moved
    assert client.apply(doc, "ads").verb == "configured"  # only the labels changed (the version does not move)
    assert [r.method for r in script.requests] == ["GET", "PUT"] * 4
    put = script.requests[1]
    assert put.method == "PUT" and put.url.path == "/api/v1/projects/ads/workloads/PinApp/web/"
    assert json.loads(put.content)["kind"] == "PinApp"
    assert json.loads(script.requests[3].content)["metadata"] == {"name": "web"}
    with pytest.raises(ValueError, match="no project"):
        client.apply(doc)


# --- configuration --------------------------------------------------------------------------------------------


def test_the_environment_wins_over_the_config_file(tmp_path):
    config = tmp_path / "pinconsole" / "config.toml"
    config.parent.mkdir()
    config.write_text('url = "https://file.test"\ntoken = "pct_file"\n')
    env = {"XDG_CONFIG_HOME": str(tmp_path)}

    assert load_config(env) == load_config(env, config)
    assert (load_config(env).url, load_config(env).token) == ("https://file.test", "pct_file")
    both = load_config({**env, "PINCONSOLE_URL": "https://env.test", "PINCONSOLE_TOKEN": "pct_env"})
    assert (both.url, both.token, both.source) == ("https://env.test", "pct_env", "")
    mixed = load_config({**env, "PINCONSOLE_TOKEN": "pct_env"})
    assert (mixed.url, mixed.token) == ("https://file.test", "pct_env")


def test_a_json_config_file_and_the_home_default(tmp_path):
    config = tmp_path / ".config" / "pinconsole" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"url": "https://json.test/api/v1/", "token": "pct_json"}))

    loaded = load_config({"HOME": str(tmp_path)})

    assert (loaded.url, loaded.token, loaded.source) == ("https://json.test/api/v1/", "pct_json", str(config))
    assert Client(env={"HOME": str(tmp_path)}).url == "https://json.test"  # /api/v1 is the client's to add


def test_a_missing_or_broken_config_is_a_config_error(tmp_path):
    broken = tmp_path / "config.toml"
    broken.write_text("url = ")

    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config({}, broken)
    with pytest.raises(ConfigError, match="no config file"):
        load_config({"PINCONSOLE_CONFIG": str(tmp_path / "absent.toml")})
    with pytest.raises(ConfigError, match="no API token"):
        Client(env={"PINCONSOLE_URL": "https://x.test", "HOME": str(tmp_path)})
    with pytest.raises(ConfigError, match="no portal URL"):
        Client(env={"HOME": str(tmp_path)})


# --- streams (the websocket side, with a scripted stream) ----------------------------------------------------


class ScriptedStream:
    """``Stream``'s interface over a list of messages (None: a pause); then a normal close."""

    def __init__(self, *messages: Any) -> None:
        self.messages, self.sent = list(messages), []
        self.exit_code, self.ended = None, False

    def receive(self, timeout: float | None) -> Any:
        from pinconsole_sdk.streams import Closed

        if not self.messages:
            raise Closed(1000, "")
        return self.messages.pop(0)

    def send(self, message: Any) -> None:
        self.sent.append(message)


def test_the_shell_output_ends_at_the_end_marker_even_split_across_messages():
    from pinconsole_sdk.streams import END, MARKER, Shell, shell_line

    line = shell_line(["echo", "a b"], quiet_tty=True)
    assert "'a b' </dev/null; s=$?;" in line and line.endswith('read -r _; exit "$s"\n')
    assert "</dev/null" not in shell_line(["cat"], quiet_tty=True, stdin=True)
    tail = END + "3" + MARKER
    chunks = ["prompt$ typed line" + MARKER + "hello\n", "wor", "ld\n" + tail[:5], tail[5:-1], tail[-1:], "ignored"]
    stream = ScriptedStream(*({"type": "stdout", "data": c} for c in chunks))
    written: list[str] = []
    shell = Shell(stream, written.append)  # type: ignore[arg-type]
    shell.hiding = True

    assert shell.run() == 3
    assert "".join(written) == "hello\nworld\n"
    assert stream.sent == [{"type": "stdin", "data": "\n"}]  # the shell's read: it exits with the status


def test_the_log_url_carries_the_consumers_options():
    from pinconsole_sdk.streams import log_url

    base = "ws://portal/ws/logs/member-a/proj-ads/web-1/app/"
    assert log_url(base, follow=True) == base
    assert log_url(base, follow=False, tail=5, since="10m", timestamps=True, previous=True) == (
        base + "?follow=0&tail=5&since=10m&timestamps=1&previous=1"
    )
    assert log_url(base + "?selector=x", follow=True, tail=0) == base + "?selector=x&tail=0"
