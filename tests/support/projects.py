"""Fixtures for the project service tests: a region with pools, a project with one member per role, and
the host's and members' caches filled by hand (never a real apiserver)."""

from __future__ import annotations

from typing import Any

import pytest

from projects.members import MemberInput, set_member
from projects.models import Project
from tests.support.factories import HOST, make_cluster, make_pool, make_project
from tests.support.fakes import FilledCache


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """Users here are made by the dozen; their passwords are never checked."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def caches(monkeypatch: pytest.MonkeyPatch) -> dict[str, FilledCache]:
    """The caches the services read: the host's under ``HOST`` (workload objects), the members' by name
    (pods, nodes, shards); empty and synced until a test fills one."""
    found: dict[str, FilledCache] = {}
    monkeypatch.setattr("clusters.runtime.member_caches", lambda: {n: c for n, c in found.items() if n != HOST})
    monkeypatch.setattr("clusters.runtime.host_cache", lambda: found.setdefault(HOST, FilledCache({})))
    return found


@pytest.fixture
def region(db: Any) -> None:
    """Two schedulable members: Reserved 64 cpu / 256Gi / 4 gpu, OnDemand 32 cpu / 128Gi, burst 8 cpu."""
    a, b = make_cluster("member-a"), make_cluster("member-b", zone="local-1b")
    make_pool(a, "reserved", 40, 160, 4)
    make_pool(b, "reserved", 24, 96)
    make_pool(a, "ondemand", 32, 128)
    make_pool(b, "burst", 8, 32)


@pytest.fixture
def developer(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("devi", "devi@example.com", "pw-devi-Secret!")


@pytest.fixture
def viewer(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user("vic", "vic@example.com", "pw-vic-Secret!")


@pytest.fixture
def owner(user: Any) -> Any:
    return user


@pytest.fixture
def project(region: None, caches: dict[str, FilledCache], owner: Any, developer: Any, viewer: Any, admin_user: Any):
    """``ads``: owner dev1, developer devi, viewer vic; no grants yet."""
    project = make_project("ads", owner)
    set_member(project, MemberInput("user", developer.username, "developer"), actor=owner)
    set_member(project, MemberInput("user", viewer.username, "viewer"), actor=owner)
    return project


@pytest.fixture
def other_project(region: None, other_user: Any) -> Project:
    """``ml``, owned by dev2 only: another tenant for dev1."""
    return make_project("ml", other_user)
