"""Which failures the transport retry repeats for which verbs, and what ``describe`` shows people.

A call that is not idempotent (POST create, a merge patch) is sent again only when the request surely did not
reach the apiserver (refused, DNS, connect timeout, TLS handshake, 429); a read timeout or a connection cut
after sending is ambiguous and left to the caller, which reads back what happened. Texts shown to users name
the cluster, never the apiserver's address (urllib3's ``HTTPSConnectionPool(host=..., port=...)``)."""

from __future__ import annotations

import socket

import pytest
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)

from clusters.kube.breaker import CircuitBreaker
from pincompute.kube.retry import call_with_retry, describe, surely_unsent

POOL = "HTTPSConnectionPool(host='10.3.4.5', port=26554)"


def api_error(status: int, reason: str = "x") -> ApiException:
    return ApiException(status=status, reason=reason)


def read_timeout() -> ReadTimeoutError:
    return ReadTimeoutError(None, "/apis", f"{POOL}: Read timed out. (read timeout=10.0)")


def refused() -> NewConnectionError:
    return NewConnectionError(None, f"{POOL}: Failed to establish a new connection: [Errno 111] Connection refused")


UNSENT = [
    refused(),
    ConnectTimeoutError(None, f"{POOL}: Connection to 10.3.4.5 timed out. (connect timeout=3.0)"),
    NameResolutionError("api.internal", None, socket.gaierror(-2, "Name or service not known")),
    MaxRetryError(None, "/apis", reason=refused()),
    ConnectionRefusedError(111, "Connection refused"),
    socket.gaierror(-2, "Name or service not known"),
    api_error(429),
    api_error(0, "SSLError\nbad handshake"),
]
AMBIGUOUS = [
    read_timeout(),
    ProtocolError("Connection aborted.", ConnectionResetError(104, "Connection reset by peer")),
    MaxRetryError(None, "/apis", reason=read_timeout()),
    ConnectionResetError(104, "Connection reset by peer"),
    TimeoutError("timed out"),
    api_error(500),
    api_error(503),
    api_error(504),
]


class Flaky:
    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


def run(fn: Flaky, *, idempotent: bool) -> str:
    return call_with_retry(fn, attempts=3, sleep=lambda _: None, idempotent=idempotent)


@pytest.mark.parametrize("error", UNSENT, ids=lambda e: type(e).__name__)
def test_a_request_that_surely_did_not_reach_the_server_is_retried_for_every_verb(error):
    assert surely_unsent(error)
    for idempotent in (True, False):
        fn = Flaky(error)
        assert run(fn, idempotent=idempotent) == "ok" and fn.calls == 2


@pytest.mark.parametrize("error", AMBIGUOUS, ids=lambda e: type(e).__name__)
def test_an_ambiguous_failure_is_retried_only_for_an_idempotent_call(error):
    assert not surely_unsent(error)
    fn = Flaky(error)
    assert run(fn, idempotent=True) == "ok" and fn.calls == 2

    fn = Flaky(error)
    with pytest.raises(type(error)):
        run(fn, idempotent=False)
    assert fn.calls == 1  # never sent twice: the first may have been applied


def test_a_client_error_is_never_retried():
    for idempotent in (True, False):
        fn = Flaky(api_error(409))
        with pytest.raises(ApiException):
            run(fn, idempotent=idempotent)
        assert fn.calls == 1


def test_calls_are_idempotent_unless_said_otherwise():
    fn = Flaky(read_timeout())
    assert call_with_retry(fn, attempts=2, sleep=lambda _: None) == "ok"


@pytest.mark.parametrize(
    "error",
    [
        read_timeout(),
        refused(),
        ConnectTimeoutError(None, f"{POOL}: Connection to 10.3.4.5 timed out. (connect timeout=3.0)"),
        MaxRetryError(None, "https://10.3.4.5:26554/apis", reason=refused()),
        ProtocolError("Connection aborted.", ConnectionResetError(104, "Connection reset by peer")),
        SSLError(f"{POOL}: [SSL: CERTIFICATE_VERIFY_FAILED] for 10.3.4.5"),
        OSError("could not connect to 10.3.4.5:26554"),
        api_error(0, f"SSLError\n{POOL}: bad handshake"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_describe_names_the_error_and_the_cluster_never_the_apiservers_address(error):
    text = describe(error, cluster="member-a")

    assert text.startswith(type(error).__name__ + ": ")
    assert "10.3.4.5" not in text and "26554" not in text and "HTTPSConnectionPool" not in text
    assert "\n" not in text
    if not isinstance(error, OSError) or isinstance(error, ConnectionError):
        assert "member-a" in text


def test_describe_without_a_cluster_says_the_apiserver():
    text = describe(read_timeout())
    assert text == "ReadTimeoutError: the apiserver did not answer within 10.0 s (read timed out)"
    assert describe(read_timeout(), cluster="host") == (
        "ReadTimeoutError: host's apiserver did not answer within 10.0 s (read timed out)"
    )
    assert describe(ReadTimeoutError(None, "/apis", "Read timed out.")) == (
        "ReadTimeoutError: the apiserver did not answer in time (read timed out)"
    )


def test_the_breakers_last_error_names_its_cluster_not_the_address():
    breaker = CircuitBreaker("member-b")
    breaker.record_failure(refused())

    assert breaker.last_error is not None
    assert "member-b" in breaker.last_error and "10.3.4.5" not in breaker.last_error
