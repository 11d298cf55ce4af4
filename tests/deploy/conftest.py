"""The Helm chart's fixtures (defined in tests/support/helm.py and chart_release.py): helm from its pinned Go module,
``render``, the chart's releases on the local clusters (one per test module); the
project image built with podman from Debian-made bases (tests/harness/image.py), once per session."""

import os
from collections.abc import Iterator

import pytest

from tests.harness.image import BuiltImage, build_project_image
from tests.harness.podman import Podman
from tests.harness.services import ComponentFailed
from tests.support.chart_release import crds, host_release, kwok_release, member_release  # noqa: F401 - fixtures
from tests.support.helm import helm, render  # noqa: F401 - fixtures, used by name


@pytest.fixture(scope="session")
def podman() -> Iterator[Podman]:
    """podman with its state under the cache; the containers a killed session left are removed first, and the ones
    this session started are all gone at its end."""
    try:
        tool = Podman.in_cache()
        tool.reap_abandoned()
    except ComponentFailed as exc:
        pytest.fail(f"podman could not start: {exc}", pytrace=False)
    yield tool
    assert tool.owned_containers(owner=os.getpid()) == []


@pytest.fixture(scope="session")
def project_image(podman: Podman) -> BuiltImage:
    try:
        return build_project_image(podman)
    except ComponentFailed as exc:
        pytest.fail(f"the image did not build: {exc}", pytrace=False)
