import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kubernetes.client.exceptions import ApiException

from clusters.kube.breaker import CircuitBreaker, CircuitOpen


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def make(clock, **kw):
    return CircuitBreaker("member-a", clock=clock, wall=clock, **kw)


def fail(exc=None):
    def fn():
        raise exc or OSError("connection refused")

    return fn


def trip(br, n):
    for _ in range(n):
        with pytest.raises(OSError):
            br.call(fail())


def test_opens_after_threshold_consecutive_failures_and_stops_calling():
    clock = Clock()
    br = make(clock, threshold=3)
    trip(br, 2)
    assert br.state == "closed"

    trip(br, 1)

    assert br.state == "open" and br.opened_at == 1000.0
    assert br.last_error == "OSError: connection refused"
    calls = []
    with pytest.raises(CircuitOpen) as info:
        br.call(lambda: calls.append(1))
    assert calls == [] and info.value.cluster == "member-a" and info.value.retry_in == 15.0


def test_success_in_between_resets_the_count():
    br = make(Clock(), threshold=3)
    trip(br, 2)
    br.call(lambda: None)
    trip(br, 2)
    assert br.state == "closed"


def test_half_open_allows_one_trial_then_closes_on_success():
    clock = Clock()
    br = make(clock, threshold=1, cooloff=15)
    trip(br, 1)
    clock.now += 15

    assert br.state == "half_open"
    assert br.call(lambda: "v1.33") == "v1.33"
    assert br.state == "closed" and br.cooloff == 15 and br.last_success_at == clock.now


def test_failed_trial_reopens_with_doubled_cooloff_capped_at_two_minutes():
    clock = Clock()
    br = make(clock, threshold=1, cooloff=15, max_cooloff=120)
    trip(br, 1)
    seen = []
    for _ in range(5):
        clock.now += br.cooloff
        trip(br, 1)
        seen.append(br.cooloff)
    assert seen == [30, 60, 120, 120, 120]
    assert br.state == "open"


def test_only_one_trial_at_a_time_in_half_open():
    clock = Clock()
    br = make(clock, threshold=1)
    trip(br, 1)
    clock.now += 15
    br.before_call()  # the trial is in flight

    with pytest.raises(CircuitOpen):
        br.before_call()


def test_client_errors_prove_the_cluster_is_up():
    br = make(Clock(), threshold=1)
    with pytest.raises(ApiException):
        br.call(fail(ApiException(status=404, reason="Not Found")))
    assert br.state == "closed" and br.last_success_at is not None


def test_server_errors_count_as_failures():
    br = make(Clock(), threshold=2)
    for _ in range(2):
        with pytest.raises(ApiException):
            br.call(fail(ApiException(status=503, reason="Unavailable")))
    assert br.state == "open"


events = st.lists(
    st.one_of(st.just("ok"), st.just("fail"), st.just("bug"), st.floats(min_value=0, max_value=200)), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(events, st.integers(min_value=1, max_value=6))
def test_any_sequence_of_events_keeps_the_invariants(seq, threshold):
    clock = Clock()
    br = make(clock, threshold=threshold, cooloff=15, max_cooloff=120)
    for ev in seq:
        before = br.state
        if isinstance(ev, float):
            clock.now += ev
        else:

            def fn(ev=ev):
                if ev == "fail":
                    raise OSError("down")
                if ev == "bug":
                    raise KeyError("ours")

            try:
                br.call(fn)
            except CircuitOpen:
                assert before == "open"
            except (OSError, KeyError):
                pass
            else:
                assert br.state == "closed" and br.failures == 0
        state = br.state
        assert state in ("closed", "open", "half_open")
        assert 15 <= br.cooloff <= 120
        if state == "closed":
            assert br.opened_at is None and br.failures < threshold
        else:
            assert br.opened_at is not None and br.last_error is not None
            assert br.opened_at <= clock.now
            assert (state == "half_open") == (clock.now >= br.opened_at + br.cooloff)
        if state == "open":
            assert 0 < br.retry_in() <= br.cooloff
