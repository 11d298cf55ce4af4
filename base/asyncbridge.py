"""Calling async code (the channel layer) from sync code that may run in a thread with an event loop running.

``async_to_sync`` refuses a thread whose event loop is running (a Playwright session in tests, an ASGI server's
loop thread): then the call runs on a short-lived worker thread instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from asgiref.sync import async_to_sync

T = TypeVar("T")


def call_async(fn: Callable[[], Awaitable[T]]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return async_to_sync(fn)()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(async_to_sync(fn)).result()
