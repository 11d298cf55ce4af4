"""The pure planner of the members' copies of a project's Secrets and ConfigMaps, and the checksum that rolls pods."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pincompute.federation.config_copies import (
    COPY_LABEL,
    SOURCE_HASH_ANNOTATION,
    USED_BY_ANNOTATION,
    checksum,
    member_copy,
    plan,
    same_copy,
)

NS = "proj-pay"


def _secret(name: str, value: str = "czNjcjN0") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": name, "namespace": NS, "labels": {"pincompute.io/project": "pay"}, "uid": "u1"},
        "data": {"password": value},
    }


def _config(name: str, value: str = "a=1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NS}, "data": {"f": value}}


def _app(name: str, clusters: list[str], *, secret: str = "db", config: str = "conf", roll: bool = True) -> dict:
    ref: dict[str, Any] = {"name": secret, "key": "password"}
    if not roll:
        ref["rollOnChange"] = False
    return {
        "kind": "PinApp",
        "metadata": {"name": name, "namespace": NS},
        "spec": {
            "template": {
                "containers": [{"name": "c", "env": [{"name": "P", "valueFrom": {"secretKeyRef": ref}}]}],
                "volumes": [{"name": "v", "configMap": {"name": config}}],
            }
        },
        "status": {
            "placement": {"clusters": [{"cluster": c, "zone": "z", "shardIndex": i} for i, c in enumerate(clusters)]}
        },
    }


HELD = {("Secret", "db"): _secret("db"), ("ConfigMap", "conf"): _config("conf"), ("Secret", "other"): _secret("other")}


def test_each_member_of_a_shard_gets_exactly_the_referenced_objects_with_the_hosts_data() -> None:
    copies = plan([_app("web", ["east", "west"])], HELD)
    assert set(copies) == {"east", "west"}
    for member in copies.values():
        assert set(member) == {("Secret", "db"), ("ConfigMap", "conf")}  # never the unreferenced "other"
        secret = member[("Secret", "db")].manifest
        assert secret["data"] == {"password": "czNjcjN0"} and secret["type"] == "Opaque"
        assert secret["metadata"]["labels"][COPY_LABEL] == "true"
        assert secret["metadata"]["annotations"][USED_BY_ANNOTATION] == "PinApp/web"
        assert "uid" not in secret["metadata"]


def test_a_member_without_a_shard_holds_nothing_and_users_are_joined() -> None:
    copies = plan([_app("web", ["east"]), _app("api", ["east", "west"], config="missing")], HELD)
    assert copies["east"][("Secret", "db")].manifest["metadata"]["annotations"][USED_BY_ANNOTATION] == (
        "PinApp/api,PinApp/web"
    )
    assert set(copies["west"]) == {("Secret", "db")}  # the absent ConfigMap is not copied
    assert plan([_app("web", [])], HELD) == {}


def test_a_workload_being_deleted_needs_nothing() -> None:
    app = _app("web", ["east"])
    app["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert plan([app], HELD) == {}


def test_the_checksum_follows_the_content_unless_the_reference_opts_out() -> None:
    changed = {**HELD, ("Secret", "db"): _secret("db", "bmV3")}
    rolling = _app("web", ["east"])
    assert checksum(rolling, HELD) != checksum(rolling, changed)
    assert checksum(rolling, HELD) == checksum(rolling, {**HELD, ("Secret", "other"): _secret("other", "eA==")})
    opted_out = _app("web", ["east"], roll=False)
    assert checksum(opted_out, HELD) == checksum(opted_out, changed)  # only the ConfigMap rolls it
    assert checksum(opted_out, HELD) != checksum(opted_out, {**HELD, ("ConfigMap", "conf"): _config("conf", "b")})


def test_same_copy_sees_a_changed_value_and_changed_users() -> None:
    desired = member_copy(_secret("db"), ["PinApp/web"])
    live = {**desired.manifest, "metadata": {**desired.manifest["metadata"], "uid": "m", "resourceVersion": "3"}}
    assert same_copy(desired, live)
    assert not same_copy(desired, {**live, "data": {"password": "bmV3"}})
    assert not same_copy(member_copy(_secret("db"), ["PinApp/web", "PinApp/api"]), live)
    assert not same_copy(desired, None)


names = st.sampled_from(["a", "b", "c"])
members = st.lists(st.sampled_from(["east", "west", "north"]), unique=True, max_size=3)


@given(st.lists(st.tuples(names, names, members), max_size=6), st.sets(names))
def test_every_copy_is_referenced_by_a_workload_placed_there_and_held(
    apps: list[tuple[str, str, list[str]]], held_names: set[str]
) -> None:
    held = {("Secret", n): _secret(n) for n in held_names}
    workloads = [_app(f"w{i}", clusters, secret=s, config=c) for i, (s, c, clusters) in enumerate(apps)]
    copies = plan(workloads, held)
    for cluster, objects in copies.items():
        for (kind, name), copy in objects.items():
            assert (kind, name) in held
            users = copy.manifest["metadata"]["annotations"][USED_BY_ANNOTATION].split(",")
            assert users and all(
                any(f"PinApp/w{i}" == u and cluster in cl and s == name for i, (s, _c, cl) in enumerate(apps))
                for u in users
            )
            assert copy.manifest["metadata"]["annotations"][SOURCE_HASH_ANNOTATION] == copy.source_hash
    for s, _c, clusters in apps:
        for cluster in clusters:
            if s in held_names:
                assert ("Secret", s) in copies[cluster]
