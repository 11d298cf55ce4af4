"""The async tests' guard (tests.support.stuck_tasks): a leftover task that ignores cancellation is named within a
bound and taken out of the loop's sight, instead of hanging the worker in pytest-asyncio's unbounded wait."""

from __future__ import annotations

import asyncio
import contextlib

from tests.support.stuck_tasks import cancel_leftovers


async def stubborn() -> None:
    while True:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.05)


def test_a_task_that_ignores_cancellation_is_named_and_unregistered():
    loop = asyncio.new_event_loop()
    try:
        started = [loop.create_task(stubborn(), name="stubborn-one"), loop.create_task(asyncio.sleep(100))]
        loop.run_until_complete(asyncio.sleep(0.01))  # both waiting, as a test's leftovers are

        stuck = cancel_leftovers(loop, seconds=0.3)

        assert len(stuck) == 1 and stuck[0].startswith("stubborn-one") and "await asyncio.sleep(0.05)" in stuck[0]
        assert not asyncio.all_tasks(loop) and started[1].cancelled()
    finally:
        loop.close()


def test_leftovers_that_honour_cancellation_are_not_reported():
    loop = asyncio.new_event_loop()
    try:
        started = loop.create_task(asyncio.sleep(100))
        loop.run_until_complete(asyncio.sleep(0.01))

        assert cancel_leftovers(loop, seconds=0.3) == [] and started.cancelled()
    finally:
        loop.close()
