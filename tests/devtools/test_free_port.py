"""Ports for servers started later: each pytest-xdist worker picks from its own share of the range, and a process
never hands out the same port twice (two workers once picked the same port: one's Mailpit found the other's Redis)."""

from __future__ import annotations

import pytest

from devtools.localcp import procs


@pytest.mark.parametrize(
    ("environ", "share"),
    [
        ({"PYTEST_XDIST_WORKER": "gw1", "PYTEST_XDIST_WORKER_COUNT": "3"}, (1, 3)),
        ({"PYTEST_XDIST_WORKER": "gw0", "PYTEST_XDIST_WORKER_COUNT": "1"}, (0, 1)),
        ({}, (0, 1)),
        ({"PYTEST_XDIST_WORKER": "master", "PYTEST_XDIST_WORKER_COUNT": "3"}, (0, 1)),
        ({"PYTEST_XDIST_WORKER": "gw2", "PYTEST_XDIST_WORKER_COUNT": "0"}, (0, 1)),
    ],
)
def test_a_workers_share_comes_from_its_id_and_the_worker_count(environ, share):
    assert procs.port_share(environ) == share


def test_the_workers_shares_do_not_overlap_and_no_port_is_handed_out_twice(monkeypatch):
    monkeypatch.setattr(procs, "_handed", set())
    picked: dict[int, set[int]] = {}
    for index in range(3):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{index}")
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
        picked[index] = {procs.free_port() for _ in range(40)}
        assert len(picked[index]) == 40  # never the same port twice
    assert max(picked[0]) < min(picked[1]) and max(picked[1]) < min(picked[2])
    assert max(picked[2]) < procs._ephemeral_low()
    again = next(iter(picked[0]))
    assert procs.free_port(preferred=again) == again  # a server's own earlier port, free again: a restart keeps it
