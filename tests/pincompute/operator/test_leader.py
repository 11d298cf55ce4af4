"""Leader election state machine against a fake Lease store and a fake clock."""

import threading
from dataclasses import replace

from pincompute.errors import Conflict, TemporaryError
from pincompute.operator.controller import Operator
from pincompute.operator.health import ELECTION_STALL, liveness
from pincompute.operator.leader import LeaderElector, LeaseRecord
from pincompute.runtime import load_profile


class FakeLeases:
    def __init__(self):
        self.record = None
        self.version = 0
        self.fail = False

    def get(self):
        if self.fail:
            raise TemporaryError("apiserver down")
        return self.record

    def create(self, record):
        if self.record is not None:
            raise Conflict("exists")
        return self._store(record)

    def update(self, record):
        if self.fail:
            raise TemporaryError("apiserver down")
        if record.resource_version != self.record.resource_version:
            raise Conflict("stale")
        return self._store(record)

    def _store(self, record):
        self.version += 1
        self.record = replace(record, resource_version=str(self.version))
        return self.record


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def elector(store, name, clock):
    return LeaderElector(store, name, lease_duration=10, renew_deadline=7, retry_period=2, clock=clock)


def test_first_candidate_acquires_and_second_stands_by():
    store, clock = FakeLeases(), Clock()
    a, b = elector(store, "a", clock), elector(store, "b", clock)

    assert a.step() is True
    assert b.step() is False
    assert store.record.holder == "a"


def test_standby_takes_over_only_after_the_lease_stops_changing_for_its_duration():
    store, clock = FakeLeases(), Clock()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    a.step()
    b.step()

    clock.now = 9.0  # a stopped renewing at t=0 (crashed)
    assert b.step() is False
    clock.now = 10.5
    assert b.step() is True
    assert store.record.holder == "b" and store.record.transitions == 1


def test_renewals_keep_the_standby_away_regardless_of_wall_clock():
    store, clock = FakeLeases(), Clock()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    for t in range(0, 60, 2):
        clock.now = float(t)
        a.step()
        b.step()

    assert a.leading and not b.leading


def test_release_hands_over_at_the_standbys_next_round():
    store, clock = FakeLeases(), Clock()
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    a.step()
    b.step()

    assert a.release() is True
    clock.now = 2.0
    assert b.step() is True
    assert a.leading is False


def test_leadership_is_lost_when_renewal_fails_past_the_deadline():
    store, clock = FakeLeases(), Clock()
    a = elector(store, "a", clock)
    a.step()
    store.fail = True

    clock.now = 4.0
    assert a.step() is True  # still within the renew deadline
    clock.now = 7.5
    assert a.step() is False


def test_two_candidates_racing_for_an_expired_lease_cannot_both_win():
    store, clock = FakeLeases(), Clock()
    store.record = LeaseRecord("old", 10, 0, "", "0")
    a, b = elector(store, "a", clock), elector(store, "b", clock)
    a.step()
    b.step()
    clock.now = 11.0
    # both read the same record; a writes first, b's write carries a stale resourceVersion
    current = store.get()
    a._try_acquire_or_renew(clock.now)
    store.get = lambda: current

    assert b._try_acquire_or_renew(clock.now) is False
    assert store.record.holder == "a"


def test_an_election_that_stopped_stepping_fails_the_operators_liveness():
    clock = Clock()
    candidate = elector(FakeLeases(), "a", clock)
    op = Operator({}, load_profile(), threading.Event(), elector=candidate)
    assert liveness(op, clock=clock) == []  # no round yet: the process is starting

    candidate.step()
    clock.now += ELECTION_STALL - 1
    assert liveness(op, clock=clock) == []
    clock.now += 2
    assert liveness(op, clock=clock) == [f"leader election: no round for {ELECTION_STALL + 1:.0f}s"]
