import pytest
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError, ReadTimeoutError

from pincompute.kube.retry import backoff, call_with_retry, describe, is_transient


def api_error(status, headers=None):
    exc = ApiException(status=status, reason="x")
    exc.headers = headers
    return exc


class Flaky:
    """Raises the given errors in order, then returns "ok"."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class FakeClock:
    def __init__(self):
        self.slept = []

    def sleep(self, seconds):
        self.slept.append(seconds)


@pytest.mark.parametrize(
    "error",
    [
        api_error(429),
        api_error(500),
        api_error(502),
        api_error(503),
        api_error(504),
        MaxRetryError(None, "/", "boom"),
        ProtocolError("reset"),
        NewConnectionError(None, "refused"),
        ReadTimeoutError(None, "/", "slow"),
        ConnectionRefusedError(111, "refused"),
        OSError("net down"),
    ],
)
def test_transient_errors_are_retried(error):
    fn, clock = Flaky(error, error), FakeClock()

    assert call_with_retry(fn, sleep=clock.sleep, rng=lambda: 1.0) == "ok"

    assert fn.calls == 3
    assert clock.slept == [0.2, 0.4]


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 410, 422])
def test_other_client_errors_raise_at_once(status):
    fn, clock = Flaky(api_error(status)), FakeClock()

    with pytest.raises(ApiException) as info:
        call_with_retry(fn, sleep=clock.sleep)

    assert info.value.status == status
    assert fn.calls == 1 and clock.slept == []


def test_gives_up_after_attempts_and_reraises_the_last_error():
    errors = [api_error(503) for _ in range(5)]
    fn, clock = Flaky(*errors), FakeClock()

    with pytest.raises(ApiException) as info:
        call_with_retry(fn, attempts=5, sleep=clock.sleep, rng=lambda: 0.5)

    assert info.value is errors[-1]
    assert fn.calls == 5
    assert clock.slept == [0.1, 0.2, 0.4, 0.8]


def test_backoff_is_full_jitter_and_capped():
    assert backoff(0, 0.2, 5.0, lambda: 0.0) == 0.0
    assert backoff(10, 0.2, 5.0, lambda: 1.0) == 5.0
    assert backoff(3, 0.2, 5.0, lambda: 0.5) == pytest.approx(0.8)


def test_retry_after_is_respected_over_a_shorter_jitter():
    fn, clock = Flaky(api_error(429, {"Retry-After": "3"})), FakeClock()

    call_with_retry(fn, sleep=clock.sleep, rng=lambda: 0.1)

    assert clock.slept == [3.0]


def test_unparsable_retry_after_falls_back_to_backoff():
    fn, clock = Flaky(api_error(429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})), FakeClock()

    call_with_retry(fn, sleep=clock.sleep, rng=lambda: 1.0)

    assert clock.slept == [0.2]


def test_tls_failures_reported_as_status_0_are_transient_but_other_status_0_are_not():
    assert is_transient(ApiException(status=0, reason="SSLError\nEOF occurred"))
    assert not is_transient(ApiException(status=0, reason="Cannot prepare a request message"))


def test_non_kubernetes_errors_are_not_swallowed():
    def bug():
        raise KeyError("field")

    with pytest.raises(KeyError):
        call_with_retry(bug, sleep=FakeClock().sleep)


def test_describe_is_one_line():
    assert describe(api_error(503)) == "ApiException: 503 x"
    assert describe(OSError("a\nb")) == "OSError: a"
