"""The heap freezer (clusters.kube.heap): one freeze after a burst of lists, objects it froze leave the collector's
generations (a full collection no longer walks them) yet are still freed when the cache drops them, and it is off
when the setting says so. The list-watch's ``on_listed`` hook is pinned in test_listwatch_fake_server."""

import gc
import time
import weakref

import pytest

from clusters.kube.heap import HeapFreezer
from devtools.waiting import wait_for


class Cached:
    """Stands for a cached object (a dict cannot be weakly referenced)."""


@pytest.fixture
def thawed():
    yield
    gc.unfreeze()  # this test process keeps collecting what it froze


def test_a_burst_of_lists_freezes_once_after_the_last(thawed):
    freezer = HeapFreezer(delay=2.0)
    for _ in range(5):  # every collection of a cluster lists at start
        freezer.after_list()
    assert freezer.freezes == 0  # still within the burst
    wait_for(lambda: freezer.freezes == 1, 10, interval=0.02, what="one freeze")
    time.sleep(0.5)
    assert freezer.freezes == 1 and gc.get_freeze_count() > 0


def test_what_it_froze_leaves_the_generations_yet_is_freed_when_dropped(thawed):
    cache = [Cached() for _ in range(1000)]
    gc.collect()
    assert any(obj is cache[0] for obj in gc.get_objects(generation=2))
    freezer = HeapFreezer(delay=0)
    freezer.after_list()
    wait_for(lambda: freezer.freezes == 1, 10, interval=0.02, what="the freeze")
    assert not any(obj is cache[0] for obj in gc.get_objects())  # a full collection no longer walks it
    gone = weakref.ref(cache[0])
    cache.clear()  # the cache drops it: reference counting frees it, frozen or not
    assert gone() is None


def test_off_it_never_freezes():
    freezer = HeapFreezer(delay=0, enabled=False)
    freezer.after_list()
    time.sleep(0.2)
    assert freezer.freezes == 0 and gc.get_freeze_count() == 0
