"""deploy/requirements.lock (what the image and .venv install, hash-checked) is pip-compile's output for
pyproject.toml's dependencies: every direct pin is locked at the same version, and every package has its hashes."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.harness.image import ROOT

LOCK = ROOT / "deploy" / "requirements.lock"


def locked() -> dict[str, tuple[str, int]]:
    """{package: (version, number of hashes)} from the lock file."""
    text = LOCK.read_text().replace("\\\n", " ")
    found = {}
    for line in text.splitlines():
        pinned = re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)(.*)$", line)
        if pinned:
            name, version, rest = pinned.groups()
            found[canonicalize_name(name)] = (version, rest.count("--hash=sha256:"))
    return found


def test_every_direct_dependency_is_locked_at_its_pinned_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = {}
    for spec in project["dependencies"]:
        requirement = Requirement(spec)
        (specifier,) = requirement.specifier
        pins[canonicalize_name(requirement.name)] = specifier.version
    lock = locked()
    assert {name: lock.get(name, ("absent", 0))[0] for name in pins} == pins
    assert len(lock) > len(pins)  # the transitive ones too


def test_every_locked_package_carries_its_hashes() -> None:
    assert {name: hashes for name, (_, hashes) in locked().items() if hashes == 0} == {}
