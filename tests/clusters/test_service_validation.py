"""The registry services validate every input themselves, whichever page, API, admin or command calls them."""

import pytest

from base.errors import Invalid
from clusters import services
from clusters.models import Cluster, ClusterPool
from tests.support.factories import make_cluster

pytestmark = pytest.mark.django_db


def paths(error: Invalid) -> set[str]:
    return {f.path for f in error.fields}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"hardware_families": "gpu"}, "hardware_families"),  # a string is not a list of families
        ({"labels": ["team=ads"]}, "labels"),  # labels are a mapping
        ({"labels": {"team": 7}}, "labels"),
        ({"taints": "gpu:NoSchedule"}, "taints"),  # taints are a list of {key, value?, effect}
        ({"taints": ["gpu:NoSchedule"]}, "taints"),
        ({"schedulable": "no"}, "schedulable"),
        ({"region": None}, "region"),
    ],
)
def test_attribute_types_are_checked_by_the_service(changes, field):
    cluster = make_cluster()

    with pytest.raises(Invalid) as refused:
        services.update_cluster_attributes(cluster.pk, changes, actor=None)

    assert paths(refused.value) == {field}
    assert Cluster.objects.get(pk=cluster.pk).hardware_families == []


@pytest.mark.parametrize(
    ("pool", "field"),
    [
        (services.PoolInput(cpu="", memory="1Gi", gpu="0"), "cpu"),  # blank is not zero
        (services.PoolInput(cpu="9" * 30, memory="1Gi", gpu="0"), "cpu"),  # beyond what the registry stores
        (services.PoolInput(cpu="1", memory="9" * 30 + "Ei", gpu="0"), "memory"),
    ],
)
def test_pool_quantities_must_be_given_and_storable(pool, field):
    cluster = make_cluster()

    with pytest.raises(Invalid) as refused:
        services.update_pool(cluster.pk, "burst", pool, actor=None)

    assert paths(refused.value) == {field}
    assert not ClusterPool.objects.exists()


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "Bad_Name"}, "name"),
        ({"zone": "Local 1a"}, "zone"),
        ({"region": ""}, "region"),
        ({"role": "boss"}, "role"),
    ],
)
def test_registration_refuses_bad_fields_with_their_paths(fields, field):
    given = {
        "name": "member-z",
        "region": "local-1",
        "zone": "local-1a",
        "role": "member",
        "api_server": "https://127.0.0.1:6443",
        "kubeconfig_path": "/k",
        "kube_context": "member-z",
        **fields,
    }

    with pytest.raises(Invalid) as refused:
        services.register_cluster(**given)

    assert field in paths(refused.value)
    assert not Cluster.objects.exists()
