"""The websockets' Origin must equal an allowed origin, scheme, host and port (console.websocket_origin): the portal's
own origin as the handshake addressed it, or a CSRF_TRUSTED_ORIGINS entry."""

from __future__ import annotations

import pytest

from console.asgi import application
from console.websocket_origin import origin_allowed
from tests.support.wsclient import WebsocketCommunicator

pytestmark = pytest.mark.django_db

PATH = "/ws/no-such-endpoint/"  # accepted, then closed with a code: the handshake is what is checked here


def scope(origin: str | None, host: str = "127.0.0.1:8000", scheme: str = "ws", **extra: str) -> dict:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin is not None else [])
    headers += [(name.encode(), value.encode()) for name, value in extra.items()]
    return {"type": "websocket", "scheme": scheme, "headers": headers}


def test_the_portals_own_origin_is_allowed():
    assert origin_allowed(scope("http://127.0.0.1:8000"))
    assert origin_allowed(scope("https://127.0.0.1:8000", scheme="wss"))
    assert origin_allowed(scope("http://localhost", host="localhost"))


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:8000.evil.example",  # read as host 127.0.0.1 by urlparse
        "http://127.0.0.1:9000",  # another port
        "https://127.0.0.1:8000",  # another scheme
        "http://127.0.0.1",  # no port: port 80
        "http://evil.example",
        "http://127.0.0.1:8000/",  # not an origin: a URL
        "http://user@127.0.0.1:8000",
        "null",  # a sandboxed page or a file
        "",
    ],
)
def test_anything_else_is_refused(origin):
    assert not origin_allowed(scope(origin))


def test_no_origin_or_two_are_refused():
    assert not origin_allowed(scope(None))
    twice = scope("http://127.0.0.1:8000")
    twice["headers"].append((b"origin", b"http://127.0.0.1:8000"))

    assert not origin_allowed(twice)


def test_a_host_outside_allowed_hosts_gives_no_origin(settings):
    settings.ALLOWED_HOSTS = ["portal.example.com"]

    assert not origin_allowed(scope("http://evil.example", host="evil.example"))
    assert origin_allowed(scope("http://portal.example.com", host="portal.example.com"))


def test_behind_a_tls_proxy_the_origin_is_https(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    behind = {"x-forwarded-proto": "https"}

    assert origin_allowed(scope("https://127.0.0.1:8000", **behind))
    assert not origin_allowed(scope("http://127.0.0.1:8000", **behind))


def test_a_trusted_origin_is_allowed_exactly(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://console.example.com", "https://*.example.com"]

    assert origin_allowed(scope("https://console.example.com"))
    assert not origin_allowed(scope("https://console.example.com:8443"))
    assert not origin_allowed(scope("http://console.example.com"))
    assert not origin_allowed(scope("https://other.example.com"))  # wildcards are not honoured for sockets


@pytest.mark.parametrize(
    ("origin", "connects"),
    [("http://127.0.0.1:8000", True), ("http://127.0.0.1:8000.evil.example", False), ("http://127.0.0.1", False)],
)
async def test_the_handshake_is_refused_before_any_consumer(origin, connects):
    headers = [(b"host", b"127.0.0.1:8000"), (b"origin", origin.encode())]
    comm = WebsocketCommunicator(application, PATH, headers=headers)

    connected, _ = await comm.connect()
    await comm.disconnect()

    assert connected is connects
