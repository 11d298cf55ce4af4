"""podshim on a fresh cache: the members come up in parallel and each asks for it; one build, every caller served."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from devtools.localcp.binaries import podshim


@pytest.mark.integration
@pytest.mark.parametrize("machine", range(5))  # a fresh cache each: the race is between builds finishing together
def test_members_asking_for_podshim_at_once_on_a_fresh_cache_all_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, machine: int
) -> None:
    monkeypatch.setenv("PINCONSOLE_CACHE", str(tmp_path / "cache"))
    with ThreadPoolExecutor(6) as pool:
        built = list(pool.map(lambda _member: podshim(), range(6)))

    assert len(set(built)) == 1 and built[0].is_file()
    assert [p.name for p in built[0].parent.iterdir()] == [built[0].name]  # no temp file left behind
