"""Work queue: per-key serialization, dedup, eventual processing, backoff bounds."""

import itertools
import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.operator.workqueue import KeyBackoff, TokenBucket, WorkQueue


def test_duplicate_adds_are_queued_once():
    queue = WorkQueue()
    for _ in range(3):
        queue.add("a")
    queue.add("b")

    assert queue.depth()[0] == 2


def test_key_added_while_processing_runs_again_after_done():
    queue = WorkQueue()
    queue.add("a")
    key = queue.get(timeout=1)
    queue.add("a")

    assert queue.get(timeout=0.05) is None  # never handed to a second worker meanwhile
    queue.done(key)
    assert queue.get(timeout=1) == "a"


def test_add_after_waits_and_earliest_time_wins():
    now = [0.0]
    queue = WorkQueue(clock=lambda: now[0])
    queue.add_after("a", 10)
    queue.add_after("a", 2)

    assert queue.get(timeout=0) is None
    now[0] = 2.5
    assert queue.get(timeout=0) == "a"


def test_shutdown_releases_blocked_workers():
    queue = WorkQueue()
    got = []
    worker = threading.Thread(target=lambda: got.append(queue.get()))
    worker.start()
    queue.shutdown()
    worker.join(2)

    assert got == [None]


@given(st.integers(min_value=0, max_value=40))
def test_backoff_doubles_from_50ms_and_is_capped_at_60s(failures):
    backoff = KeyBackoff(base=0.05, cap=60.0)
    delays = [backoff.next_delay("k") for _ in range(failures + 1)]

    assert delays[0] == 0.05
    assert all(0.05 <= d <= 60.0 for d in delays)
    assert all(b == min(60.0, a * 2) for a, b in itertools.pairwise(delays))
    backoff.forget("k")
    assert backoff.next_delay("k") == 0.05


def test_rate_limited_delay_is_backoff_with_at_most_10_percent_jitter():
    queue = WorkQueue(jitter=lambda: 1.0)

    delays = [queue.add_rate_limited("k") for _ in range(4)]

    assert delays == [0.05 * 1.1, 0.1 * 1.1, 0.2 * 1.1, 0.4 * 1.1]


def test_token_bucket_spreads_a_burst():
    now = [0.0]
    bucket = TokenBucket(rate=10, burst=2, clock=lambda: now[0])

    waits = [bucket.reserve() for _ in range(4)]

    assert waits[:2] == [0.0, 0.0]
    assert waits[2] == 0.1 and abs(waits[3] - 0.2) < 1e-9


@settings(max_examples=25, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=5), min_size=1, max_size=60),
    workers=st.integers(min_value=1, max_value=4),
    requeue=st.sets(st.integers(min_value=0, max_value=5)),
)
def test_no_key_is_processed_concurrently_and_every_key_is_processed(keys, workers, requeue):
    queue = WorkQueue(backoff=KeyBackoff(base=0.001, cap=0.002))
    active, processed, violations = set(), [], []
    lock = threading.Lock()
    failed_once = set()

    def work():
        while (key := queue.get()) is not None:
            with lock:
                if key in active:
                    violations.append(key)
                active.add(key)
            time.sleep(0.0005)
            with lock:
                active.discard(key)
                processed.append(key)
                fail = key in requeue and key not in failed_once
                failed_once.add(key)
            if fail:
                queue.add_rate_limited(key)
            queue.done(key)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for key in keys:
        queue.add(key)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with lock:
            if set(keys) <= set(processed) and all(processed.count(k) >= 2 for k in requeue & set(keys)):
                break
        time.sleep(0.005)
    queue.shutdown()
    for thread in threads:
        thread.join(2)

    assert violations == []
    assert set(keys) <= set(processed)
    assert all(processed.count(k) >= 2 for k in requeue & set(keys))
