"""``manage.py run_operator`` from the registry: members named as the registry names them (the
federation's MemberCluster objects use those names), the registered host runs the federation and holds
the lease."""

import pytest
from django.core.management import call_command

from clusters.models import Cluster


@pytest.fixture
def registry(db):
    common = {"region": "r", "kubeconfig_path": "/k"}
    Cluster.objects.create(name="host", zone="z0", role="host", api_server="https://h", **common)
    Cluster.objects.create(name="east-1", zone="z1", api_server="https://e", kube_context="ctx-east", **common)


def run_with(monkeypatch, *args):
    seen = []
    monkeypatch.setattr("workloads.management.commands.run_operator.run", lambda s: seen.append(s) or 0)
    call_command("run_operator", *args)
    return seen[0]


def test_the_registry_gives_members_by_registry_name_and_the_host_runs_the_federation(registry, monkeypatch):
    settings = run_with(monkeypatch)

    assert [(t.name, t.context) for t in settings.clusters] == [("east-1", "ctx-east")]
    assert settings.host is not None and settings.host.name == "host"
    assert settings.lease is not None and settings.lease.name == "host"
    assert settings.options.workers == 16


def test_no_federation_runs_the_members_only(registry, monkeypatch):
    assert run_with(monkeypatch, "--no-federation").host is None
