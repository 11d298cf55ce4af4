"""Stream building blocks without a cluster: the bounded line buffer and timestamp-based seq."""

from __future__ import annotations

import asyncio

from debugging.authz import parse_selector
from debugging.logs.streams import LineBuffer, RawLine, ts_micros


async def test_a_full_line_buffer_drops_the_oldest_lines_and_counts_them():
    buffer = LineBuffer(asyncio.get_running_loop(), maxlen=3)

    for i in range(5):
        buffer.put(RawLine("p", "c", f"2026-01-01T00:00:0{i}Z", f"line {i}"))
    await asyncio.wait_for(buffer.ready.wait(), 1)
    lines, dropped = buffer.drain()

    assert [line.text for line in lines] == ["line 2", "line 3", "line 4"] and dropped == 2
    assert buffer.drain() == ([], 0) and not buffer.ready.is_set()


def test_timestamps_become_increasing_microseconds():
    assert ts_micros("2026-01-01T00:00:00.000001Z") == ts_micros("2026-01-01T00:00:00Z") + 1
    assert ts_micros("2026-01-01T00:00:01.123456789Z") - ts_micros("2026-01-01T00:00:00Z") == 1_123_456
    assert ts_micros("garbage") == 0


def test_selectors_are_equality_terms():
    assert parse_selector("pincompute.io/workload=web, tier=api") == {"pincompute.io/workload": "web", "tier": "api"}
