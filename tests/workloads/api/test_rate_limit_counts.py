"""The API's rate limits (``base.throttling``) against the suite's real Redis (in memory in the light loop): a count
is one atomic step, so concurrent requests of one user cannot get more through than the rate (DRF's read-check-write
history let 113 of 320 parallel requests through a limit of 60), and a refusal says when to retry."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from base.throttling import PERIODS, ReadWriteThrottle, UserThrottle, limiter, parse_rate, reset_limits


@pytest.fixture
def rates(settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "user": "60/min", "api-read": "1000/min"}
    settings.REST_FRAMEWORK = rest
    reset_limits()
    yield
    reset_limits()


def request_of(pk: int, method: str = "GET") -> SimpleNamespace:
    user = SimpleNamespace(pk=pk, is_authenticated=True)
    return SimpleNamespace(user=user, method=method, META={"REMOTE_ADDR": "10.0.0.1"})


def test_counts_live_in_redis_when_there_is_one():
    assert type(limiter().storage).__name__ == ("RedisStorage" if settings.REDIS_URL else "MemoryStorage")


def test_parallel_requests_of_one_user_get_exactly_the_rate_through(rates):
    pk = time.time_ns()  # a user no other run counted
    start, allowed, lock = threading.Barrier(16), [], threading.Lock()

    def client() -> None:
        start.wait()
        for _ in range(20):
            ok = UserThrottle().allow_request(request_of(pk), None)
            with lock:
                allowed.append(ok)

    threads = [threading.Thread(target=client) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(allowed) == 320 and allowed.count(True) == 60


def test_a_refusal_says_when_the_oldest_request_leaves_the_window(rates, settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "api-write": "2/min"}
    settings.REST_FRAMEWORK = rest
    pk = time.time_ns()
    writes = [ReadWriteThrottle() for _ in range(3)]

    answers = [throttle.allow_request(request_of(pk, "POST"), None) for throttle in writes]

    assert answers == [True, True, False]
    assert writes[2].wait() is not None and 58 <= writes[2].wait() <= 60
    assert ReadWriteThrottle().allow_request(request_of(pk, "GET"), None)  # reads are counted apart
    assert ReadWriteThrottle().allow_request(request_of(pk + 1, "POST"), None)  # and every user apart


def test_anonymous_callers_are_counted_per_address(rates):
    anonymous = RequestFactory().get("/", REMOTE_ADDR=f"10.9.{time.time_ns() % 250}.1")  # DRF reads its headers
    anonymous.user = None
    answers = [UserThrottle().allow_request(anonymous, None) for _ in range(61)]
    assert answers.count(True) == 60 and answers[-1] is False


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(["s", "sec", "m", "min", "minute", "h", "hour", "d"]))
def test_rates_parse_as_drf_writes_them(count, unit):
    assert parse_rate(f"{count}/{unit}") == (count, PERIODS[unit[0]])


@pytest.mark.parametrize("rate", ["", "60", "x/min", "60/week", "-1/min", "1.5/min"])
def test_a_malformed_rate_is_named(rate):
    with pytest.raises(ValueError, match="rate limit"):
        parse_rate(rate)
