"""The remotecommand websocket framing of ``debugging.kubeexec`` (channel byte + payload), property-tested."""

from __future__ import annotations

import json
from itertools import pairwise
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from debugging.kubeexec import (
    CLOSE,
    ERROR,
    RESIZE,
    STDERR,
    STDIN,
    STDOUT,
    Demux,
    close_message,
    decode,
    encode,
    exec_url,
    exit_code,
    resize_message,
)

channels = st.integers(min_value=0, max_value=255)


@given(channels, st.binary(max_size=4096))
def test_a_message_is_its_channel_byte_then_the_payload(channel, payload):
    message = encode(channel, payload)

    assert message[0] == channel and message[1:] == payload and len(message) == len(payload) + 1
    assert decode(message) == (channel, payload)


@given(st.integers().filter(lambda n: not 0 <= n <= 255))
def test_a_channel_outside_a_byte_is_refused(channel):
    with pytest.raises(ValueError, match="not a byte"):
        encode(channel, b"x")


def test_an_empty_message_has_no_channel():
    with pytest.raises(ValueError, match="no channel"):
        decode(b"")


@given(st.integers(1, 1000), st.integers(1, 1000))
def test_resize_is_the_terminal_size_as_json_on_channel_4(cols, rows):
    channel, payload = decode(resize_message(cols, rows))

    assert channel == RESIZE and json.loads(payload) == {"Width": cols, "Height": rows}


def test_v5_close_names_the_channel_it_half_closes():
    assert close_message(STDIN) == bytes((CLOSE, STDIN)) == b"\xff\x00"


@given(st.text(max_size=300), st.text(max_size=300), st.lists(st.integers(0, 2000), max_size=8))
def test_output_split_anywhere_decodes_to_the_same_text_per_channel(out, err, cuts):
    """A frame boundary may fall inside a UTF-8 character: the text of each channel is still exact."""
    demux, got = Demux(), {STDOUT: "", STDERR: ""}
    for channel, text in ((STDOUT, out), (STDERR, err)):
        raw = text.encode()
        points = sorted({0, len(raw), *(c % (len(raw) + 1) for c in cuts)})
        for a, b in pairwise(points):
            found = demux.feed(encode(channel, raw[a:b]))
            if found is not None:
                assert found[0] == channel
                got[channel] += found[1]

    assert got == {STDOUT: out, STDERR: err}
    assert demux.bytes_out == len(out.encode()) + len(err.encode())


def test_the_error_channel_is_kept_for_the_exit_code_and_empty_opening_frames_are_ignored():
    demux = Demux()
    status = json.dumps({"status": "Failure", "message": "command terminated with non-zero exit code: exit status 7"})

    assert demux.feed(b"") is None and demux.feed(bytes((STDOUT,))) is None
    assert demux.feed(encode(ERROR, status[:20].encode())) is None
    assert demux.feed(encode(ERROR, status[20:].encode())) is None
    assert demux.feed(encode(RESIZE, b"{}")) is None and demux.bytes_out == 0
    assert exit_code(demux.status) == 7


@pytest.mark.parametrize(
    ("status", "code"),
    [
        ({"status": "Success"}, 0),
        ({"status": "Failure", "details": {"causes": [{"reason": "ExitCode", "message": "42"}]}}, 42),
        ({"status": "Failure", "message": "exit code 3"}, 3),
        ({"status": "Failure", "message": "container not found"}, None),
        ([], None),
    ],
)
def test_exit_code_from_the_status(status, code):
    assert exit_code(json.dumps(status).encode()) == code


def test_a_status_that_is_not_json_has_no_exit_code():
    assert exit_code(b"not json") is None and exit_code(b"") is None


@given(st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=6), st.booleans(), st.booleans())
def test_the_exec_url_carries_the_command_in_order(command, stdin, tty):
    url = exec_url("https://10.0.0.1:6443/", "proj-a", "web-1", "app", command, stdin=stdin, tty=tty)
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)

    assert parts.scheme == "wss" and parts.path == "/api/v1/namespaces/proj-a/pods/web-1/exec"
    assert query["command"] == command and query["container"] == ["app"]
    assert query["stdin"] == [str(stdin).lower()] and query["tty"] == [str(tty).lower()]
    assert query["stdout"] == query["stderr"] == ["true"]
