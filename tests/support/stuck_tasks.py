"""An async test's leftover tasks, cancelled and awaited before pytest-asyncio closes the test's loop.

pytest-asyncio's runner cancels what is left and waits for it without a bound: a task that ignores cancellation (a
CI run once waited there 600 s, after a websocket test that had passed) hangs the worker until pytest-timeout,
and its dump shows threads, not tasks. Here the wait has a bound, and a task still running after it fails the test
naming the task and where it waits.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from typing import Any

import pytest

CANCEL_WAIT_SECONDS = 15.0


def describe(task: asyncio.Task[Any]) -> str:
    out = io.StringIO()
    task.print_stack(file=out)
    return f"{task.get_name()} {task.get_coro()!r}\n{out.getvalue()}"


def cancel_leftovers(loop: asyncio.AbstractEventLoop, seconds: float = CANCEL_WAIT_SECONDS) -> list[str]:
    """Cancel every task left on ``loop`` (not running) and wait up to ``seconds``: the ones still running."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    if not left:
        return []
    for task in left:
        task.cancel()
    _, stuck = loop.run_until_complete(asyncio.wait(left, timeout=seconds))
    described = [describe(task) for task in stuck]
    for task in stuck:  # out of the runner's sight, so that its own unbounded wait does not hang the worker
        asyncio.tasks._unregister_task(task)
    return described


@pytest.fixture(autouse=True)
def _no_stuck_tasks(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("asyncio") is None:
        yield
        return
    runner = request.getfixturevalue("_function_scoped_runner")
    yield
    stuck = cancel_leftovers(runner.get_loop())
    if stuck:
        pytest.fail(
            f"{len(stuck)} task(s) still running {CANCEL_WAIT_SECONDS:g} s after the test's loop cancelled them:\n"
            + "\n".join(stuck),
            pytrace=False,
        )
