"""Hostile input to ``pincompute`` is one clean line and a documented exit code (2, usage), never a Python
traceback: arguments that are not UTF-8 text, a bad ``--timeout`` or ``--token``, YAML values PyYAML cannot build
(or builds but JSON cannot carry), files that are not UTF-8, and files or stdin without end (``-f /dev/zero`` is
refused after the API's body limit, not read until memory runs out). Every path segment the SDK builds is one
segment (``ranker/../x``, ``..``), and an answer that is not the error body (an HTML page) is reported by its
status and a short excerpt. The last of these run against the real portal (``live_server``)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import httpx
import pytest
from pinconsole_sdk import Client, ConfigError, NotFound, ServerError
from pinconsole_sdk.cli import main
from pinconsole_sdk.documents import MAX_BYTES, DocumentError, read_source

from accounts.services import create_api_token

BASE = "https://portal.test"
HEAD = "kind: PinApp\nmetadata: {name: x}\n"


class Recorder:
    """A fake transport: every request recorded, each answered 404 with the API's error body."""

    def __init__(self, answer: httpx.Response | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.answer = answer

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.answer is not None:
            return self.answer
        error = {"status": 404, "code": "not_found", "message": "no such thing", "fields": [], "request_id": "r"}
        return httpx.Response(404, json={"error": error})


def fake_client(recorder: Recorder) -> Client:
    return Client(BASE, "pct_test", transport=httpx.MockTransport(recorder), env={})


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def run(*argv: str, client: Client | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, client=client)
    return code, out.getvalue(), err.getvalue()


def clean(err: str, start: str = "error: ") -> str:
    """The one line of a clean error (no traceback)."""
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith(start), err
    return err


# --- arguments -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("get", "pinapps", "-p", "\udcff"),  # what Python makes of the byte 0xff on the command line
        ("get", "pinapp", "web\udcff", "-p", "ads"),
        ("get", "pods", "-p", "ads", "--cluster", "member-\udcfe"),
        ("scale", "pinapp", "web", "--replicas", "2", "-p", "ads", "--if-match", "\udcff"),
    ],
)
def test_an_argument_that_is_not_utf8_is_a_usage_error(recorder, argv):
    code, out, err = run(*argv, client=fake_client(recorder))

    assert code == 2 and out == ""
    assert "is not UTF-8 text: b'" in clean(err) and "\\x" in err
    assert recorder.requests == []


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf", "1e300", "abc"])
def test_a_timeout_is_a_positive_number_of_seconds(value, capsys):
    assert run("--timeout", value, "get", "pinapps", "-p", "ads") == (2, "", "")  # argparse's usage error

    said = capsys.readouterr().err
    assert "argument --timeout" in said and "Traceback" not in said


def test_a_timeout_of_a_day_at_most_is_taken(monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PINCONSOLE_TOKEN", "pct_x")
    with pytest.raises(ValueError, match="positive number of seconds"):
        Client(timeout=-1)
    assert Client(timeout=86400).url == "http://127.0.0.1:9"


@pytest.mark.parametrize("token", ["\udcff\n", "pct_abc\n", "pct abc", "pct_é"])
def test_a_token_must_be_printable_ascii_and_is_never_echoed(token, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", "http://127.0.0.1:9")

    code, _, err = run("--token", token, "get", "pinapps", "-p", "ads")

    assert code == 2 and "printable ASCII without spaces" in clean(err)
    assert "abc" not in err and "\\x" not in err
    with pytest.raises(ConfigError):
        Client("http://127.0.0.1:9", token, env={})


def test_a_url_httpx_cannot_parse_is_a_usage_error():
    code, _, err = run("--url", "http://[::1", "--token", "pct_x", "get", "pinapps", "-p", "ads")

    assert code == 2 and "is not a valid URL" in clean(err)


def test_an_empty_name_is_a_usage_error(recorder):
    code, _, err = run("describe", "pinapp", "", "-p", "ads", client=fake_client(recorder))

    assert code == 2 and "must not be empty" in clean(err) and recorder.requests == []


# --- files -----------------------------------------------------------------------------------------------------


UNBUILDABLE = {
    "month-13": "2020-13-45",
    "feb-30": "2001-02-30",
    "offset-99": "2001-12-14t21:59:43.10+99:00",
    "5000-digits": "9" * 5000,
    "hex": "0x" + "f" * 5000,
    "base-60": ":".join(["59"] * 3000),
    "infinity": ".inf",
    "overflowing-float": "1.0e+400",
    "nan": ".nan",
    "binary": "!!binary aGVsbG8=",
    "lone-surrogate": '"\\ud800"',
}


@pytest.mark.parametrize("value", UNBUILDABLE.values(), ids=UNBUILDABLE.keys())
def test_a_value_pyyaml_cannot_build_or_json_cannot_carry_names_its_line(recorder, tmp_path, value):
    file = tmp_path / "bad.yaml"
    file.write_text(f"{HEAD}spec: {{d: {value}}}\n", encoding="utf-8")

    code, out, err = run("apply", "-f", str(file), "-p", "ads", client=fake_client(recorder))

    assert code == 2 and out == ""
    assert f"{file}: line 3, column 11: " in clean(err) and len(err) < 400
    assert recorder.requests == []


def test_a_valid_date_reaches_the_put_body_as_text(tmp_path):
    bodies: list[Any] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(404, json={"error": {"status": 404, "code": "not_found", "message": "no"}})
        bodies.append(json.loads(request.content))
        return httpx.Response(500, json={"error": {"status": 500, "message": "stop here"}})

    file = tmp_path / "dates.yaml"
    file.write_text(f"{HEAD}spec: {{d: 2020-01-01, t: 2001-12-14t21:59:43.10-05:00, q: '2020-13-45'}}\n")
    client = Client(BASE, "pct_test", transport=httpx.MockTransport(answer), env={}, sleep=lambda _: None)

    assert run("apply", "-f", str(file), "-p", "ads", client=client)[0] == 5
    assert bodies and bodies[0]["spec"] == {"d": "2020-01-01", "t": "2001-12-14t21:59:43.10-05:00", "q": "2020-13-45"}


def test_a_file_that_is_not_utf8_is_a_usage_error(recorder, tmp_path):
    file = tmp_path / "bad3.bin"
    file.write_bytes(b"\xff\xfe\x00")

    code, _, err = run("apply", "-f", str(file), "-p", "ads", client=fake_client(recorder))

    assert code == 2 and "is not UTF-8 text" in clean(err) and recorder.requests == []


def test_dev_zero_is_refused_after_the_api_limit_not_read_without_end(recorder):
    started = time.monotonic()

    code, _, err = run("apply", "-f", "/dev/zero", "-p", "ads", client=fake_client(recorder))

    assert code == 2 and f"/dev/zero is larger than {MAX_BYTES} bytes" in clean(err)
    assert MAX_BYTES == 512 * 1024  # the portal's pincompute.documents.MAX_BYTES
    assert time.monotonic() - started < 10 and recorder.requests == []


class Endless(io.RawIOBase):
    """A stream that never ends (a FIFO fed by ``yes``): each read answers as much as asked."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        buffer[:] = b"a" * len(buffer)
        self.given += len(buffer)
        return len(buffer)


def test_endless_stdin_is_refused_after_the_api_limit(recorder, monkeypatch):
    raw = Endless()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8"))

    code, _, err = run("apply", "-f", "-", "-p", "ads", client=fake_client(recorder))

    assert code == 2 and f"stdin is larger than {MAX_BYTES} bytes" in clean(err)
    assert raw.given < 2 * MAX_BYTES and recorder.requests == []


def test_a_file_at_the_limit_is_read_and_one_byte_more_is_not(tmp_path):
    at, over = tmp_path / "at.yaml", tmp_path / "over.yaml"
    at.write_bytes(b"#" * MAX_BYTES)
    over.write_bytes(b"#" * (MAX_BYTES + 1))

    assert read_source(str(at), None) == b"#" * MAX_BYTES
    with pytest.raises(DocumentError, match=f"larger than {MAX_BYTES} bytes"):
        read_source(str(over), None)
    assert read_source("-", io.StringIO("kind: PinApp\n")) == b"kind: PinApp\n"


def test_aliases_that_expand_past_the_limit_are_refused_without_expanding_them(recorder, tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, 10):
        lines.append(f"{'abcdefghij'[n]}: &{'abcdefghij'[n]} [" + ",".join([f"*{'abcdefghij'[n - 1]}"] * 9) + "]")
    file = tmp_path / "laughs.yaml"
    file.write_text(HEAD + "spec:\n" + "".join(f"  {line}\n" for line in lines))
    started = time.monotonic()

    code, _, err = run("apply", "-f", str(file), "-p", "ads", client=fake_client(recorder))

    assert code == 2 and f"larger than {MAX_BYTES} bytes as JSON" in clean(err)
    assert time.monotonic() - started < 10 and recorder.requests == []


def test_a_document_nested_too_deeply_is_a_usage_error(recorder, tmp_path):
    file = tmp_path / "deep.yaml"
    file.write_text(HEAD + "spec: " + "[" * 5000 + "]" * 5000 + "\n")

    code, _, err = run("apply", "-f", str(file), "-p", "ads", client=fake_client(recorder))

    assert code == 2 and "nested more than" in clean(err) and recorder.requests == []


def test_a_config_file_without_end_or_not_utf8_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.delenv("PINCONSOLE_TOKEN", raising=False)
    monkeypatch.setenv("PINCONSOLE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PINCONSOLE_CONFIG", "/dev/zero")
    code, _, err = run("get", "pinapps", "-p", "ads")
    assert code == 2 and "/dev/zero is larger than" in clean(err)

    bad = tmp_path / "config.toml"
    bad.write_bytes(b'token = "\xff"\n')
    monkeypatch.setenv("PINCONSOLE_CONFIG", str(bad))
    code, _, err = run("get", "pinapps", "-p", "ads")
    assert code == 2 and "is not UTF-8 text" in clean(err)


# --- the last resort -------------------------------------------------------------------------------------------


class Raising(Client):
    def __init__(self, error: Exception) -> None:
        super().__init__(BASE, "pct_test", transport=httpx.MockTransport(Recorder()), env={})
        self.error = error

    def list_workloads(self, *args: Any, **kw: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    "error",
    [ValueError("bad value"), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid"), OSError(5, "I/O error")],
)
def test_an_input_error_nothing_foresaw_is_still_one_line_and_exit_2(error):
    code, _, err = run("get", "pinapps", "-p", "ads", client=Raising(error))

    assert code == 2 and clean(err)


def test_a_bug_is_one_line_and_exit_1_and_its_traceback_is_there_on_request(monkeypatch):
    monkeypatch.delenv("PINCONSOLE_DEBUG", raising=False)
    code, _, err = run("get", "pinapps", "-p", "ads", client=Raising(KeyError("items")))
    assert code == 1 and "unexpected KeyError" in clean(err) and "PINCONSOLE_DEBUG=1" in err

    monkeypatch.setenv("PINCONSOLE_DEBUG", "1")
    with pytest.raises(KeyError):
        run("get", "pinapps", "-p", "ads", client=Raising(KeyError("items")))


# --- URL paths -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "segment"),
    [
        ("ranker/../x", "ranker%2F..%2Fx"),
        ("..", "%2E%2E"),
        (".", "%2E"),
        ("a b", "a%20b"),
        ("50%", "50%25"),
        ("x?y#z", "x%3Fy%23z"),
        ("é", "%C3%A9"),
    ],
)
def test_every_path_segment_from_input_stays_one_segment(recorder, name, segment):
    client = fake_client(recorder)
    prefix = "/api/v1/projects/"

    for call in (
        lambda: client.get(name, "PinApp", "web"),
        lambda: client.get("ads", name, "web"),
        lambda: client.get("ads", "PinApp", name),
        lambda: client.scale("ads", "PinApp", name, 2),
        lambda: client.timeline(name),
        lambda: client.pod_debug(name, name, name),
        lambda: client.list_pods(name),
        lambda: client.list_workloads(name),
    ):
        with pytest.raises(NotFound):
            call()

    paths = [r.url.raw_path.decode() for r in recorder.requests]
    assert paths == [
        f"{prefix}{segment}/workloads/PinApp/web/",
        f"{prefix}ads/workloads/{segment}/web/",
        f"{prefix}ads/workloads/PinApp/{segment}/",
        f"{prefix}ads/workloads/PinApp/{segment}/scale/",
        f"{prefix}{segment}/timeline/",
        f"{prefix}{segment}/pods/{segment}/{segment}/",
        f"{prefix}{segment}/pods/",
        f"{prefix}{segment}/workloads/",
    ]


def test_the_cli_sends_a_name_with_slashes_as_one_segment(recorder):
    code, _, err = run("get", "pinapp", "ranker/../x", "-p", "ads", client=fake_client(recorder))

    assert code == 3 and "no such thing" in err
    assert recorder.requests[0].url.raw_path == b"/api/v1/projects/ads/workloads/PinApp/ranker%2F..%2Fx/"


DJANGO_404 = (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta http-equiv="content-type" content="text/html">\n'
    "  <title>Page not found at /api/v1/projects/ads/workloads/PinApp/ranker/x/</title>\n"
    '  <style type="text/css">html * { padding:0; margin:0; }</style>\n</head>\n<body>\n'
    + "<p>Using the URLconf defined in <code>portal.urls</code>, Django tried these URL patterns</p>\n" * 300
    + "</body>\n</html>\n"
)


def test_an_html_answer_is_reported_by_its_status_and_a_short_excerpt():
    recorder = Recorder(httpx.Response(404, text=DJANGO_404, headers={"Content-Type": "text/html"}))

    code, _, err = run("get", "pinapp", "x", "-p", "ads", client=fake_client(recorder))

    assert code == 3
    assert clean(err, "Error from server") == (
        "Error from server (404): Page not found at /api/v1/projects/ads/workloads/PinApp/ranker/x/\n"
    )
    untitled = Recorder(httpx.Response(502, text="<html><body><h1>Bad   Gateway</h1>" + "x" * 5000 + "</body></html>"))
    with pytest.raises(ServerError) as raised:
        fake_client(untitled).get("ads", "PinApp", "web")
    assert raised.value.message.startswith("Bad Gateway x") and len(raised.value.message) <= 200


# --- against the real portal -----------------------------------------------------------------------------------


@pytest.fixture
def live_cli(live_server, developer, monkeypatch):
    monkeypatch.setenv("PINCONSOLE_URL", live_server.url)
    monkeypatch.setenv("PINCONSOLE_TOKEN", create_api_token(user=developer, name="cli", days=7)[1])
    return run


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("name", ["web/../web", "..", ".", "%2E%2E", "web/"])
def test_a_name_with_dots_or_slashes_is_a_json_404_from_the_portal(web, live_cli, name):
    code, out, err = live_cli("get", "pinapp", name, "-p", "ads", "-o", "json")

    assert code == 3 and out == "", (out, err)
    assert err.startswith("Error from server (not_found): ") and "<" not in err, err


@pytest.mark.django_db(transaction=True)
def test_a_project_with_dots_or_slashes_does_not_reach_another_path(web, live_cli):
    for project in ("ads/..", "..", "ads/workloads/PinApp/web/.."):
        code, out, err = live_cli("get", "pinapps", "-p", project, "-o", "json")
        assert code == 3 and out == "" and "<" not in err, (project, out, err)
    assert live_cli("get", "pinapp", "web", "-p", "ads", "-o", "name")[:2] == (0, "pinapp/web\n")


def test_json_that_is_not_the_error_body_is_shown_in_short():
    recorder = Recorder(httpx.Response(404, json={"detail": "Not found."}))

    with pytest.raises(NotFound) as raised:
        fake_client(recorder).get("ads", "PinApp", "web")

    assert raised.value.message == '{"detail": "Not found."}' and raised.value.status == 404
