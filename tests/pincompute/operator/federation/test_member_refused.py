"""A workload whose pods a member refuses (its namespace enforces a stricter Pod Security level than the host
expected) says so on the host object, with the member's message, and holds no quota until its spec changes.

Run alone: .venv/bin/pytest tests/pincompute/operator/federation/test_member_refused.py -p no:django \
    -p no:cacheprovider -o addopts="" -p tests.harness.localcp
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from kubernetes import client

from devtools.operator_process import OperatorProcess
from devtools.waiting import wait_for
from pincompute import GROUP, VERSION
from pincompute.federation.admission import claim_of
from pincompute.kinds import KINDS
from pincompute.runtime import load_profile
from pincompute.specs import parse
from pincompute.tenancy import PodSecurity, pod_security_labels
from tests.support.federation import MEMBERS, condition, custom, get, pinapp

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(300)]
APP = {"name": "app", "image": "registry.local/search/web:1.0", "resources": {"requests": {"cpu": "300m"}}}
RESTRICTED_POD = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


JOB = {"name": "worker", "image": "registry.local/batch/worker:1", "resources": {"requests": {"cpu": "10m"}}}
# Every kind that runs pods but the PinApp (above), as the members' Pod Security refuses each: the operator's own
# create of a Pod (403), the Deployment's ReplicaFailure, and the FailedCreate Events of a Job, of a DaemonSet and
# of a CronJob's run (a Job); a training job is a Job where Kubeflow is not installed.
REFUSED_KINDS = {
    "PinPod": {"containers": [JOB], "restartPolicy": "Always"},
    "PinterestService": {"replicas": 1, "containers": [JOB], "ports": [{"name": "http", "port": 80, "targetPort": 80}]},
    "PinterestJobSet": {"shards": 2, "parallelism": 2, "containers": [JOB]},
    "PinterestCronJob": {"schedule": "* * * * *", "containers": [JOB]},
    "PinterestDaemon": {"containers": [JOB]},
    "PinterestTrainingJob": {"framework": "PyTorch", "workers": 2, "containers": [{**JOB, "name": "pytorch"}]},
}


def manifest(kind: str, name: str, namespace: str, **spec: object) -> dict:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"project": namespace, "team": "team", "tier": "OnDemand", **spec},
    }


def restrict(clusters: dict[str, client.ApiClient], namespace: str) -> None:
    """The members' namespaces enforce restricted, while the host expects the project's baseline."""
    for member in MEMBERS:
        labels = {"metadata": {"labels": pod_security_labels(PodSecurity.RESTRICTED)}}
        client.CoreV1Api(clusters[member]).patch_namespace(namespace, labels)


def app(name: str, namespace: str, *, restricted: bool) -> dict:
    container = {**APP, "securityContext": RESTRICTED_CONTAINER} if restricted else APP
    template = {"containers": [container], **({"securityContext": RESTRICTED_POD} if restricted else {})}
    return pinapp(namespace, name, template=template)


def with_condition(
    host: client.ApiClient, namespace: str, name: str, type_: str, status: str, *, kind: str = "PinApp"
) -> dict | None:
    obj = get(host, kind, namespace, name)
    return obj if condition(obj, type_).get("status") == status else None


def wait_condition(
    federation: OperatorProcess,
    clusters: dict[str, client.ApiClient],
    namespace: str,
    name: str,
    type_: str,
    *,
    status: str = "True",
    kind: str = "PinApp",
    timeout: float = 120,
) -> dict:
    """The host object once its condition says ``status``, or a failure that shows where it stopped: the host
    status, each member's shard and the federation operator's log."""
    host = clusters["host"]
    try:
        return wait_for(
            lambda: with_condition(host, namespace, name, type_, status, kind=kind), timeout, what=f"{name} {type_}"
        )
    except AssertionError as timeout_error:
        shards = {m: (get(clusters[m], kind, namespace, name) or {}).get("status") for m in MEMBERS}
        host_status = (get(host, kind, namespace, name) or {}).get("status")
        raise AssertionError(
            f"{timeout_error}\nhost status: {host_status}\nshards: {shards}\noperator log:\n{federation.log()}"
        ) from None


def test_a_member_refusing_the_pods_shows_on_the_host_and_frees_the_quota(federation, federation_clusters, project):
    # given a project granted 1 CPU, whose member namespaces enforce restricted while the host expected baseline
    ns = project(cpu="1", memory="4Gi")
    restrict(federation_clusters, ns)
    host = federation_clusters["host"]
    plural = KINDS["PinApp"].plural
    # when a baseline PinApp taking 900m of it is admitted, then a restricted one of the same size comes
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, plural, app("loose", ns, restricted=False))
    # Admitted, or already refused by the members (which follows admission; on a quiet machine the refusal can land
    # between two polls, and Admitted=True is never seen: the flake in CI)
    wait_for(
        lambda: with_condition(host, ns, "loose", "Admitted", "True")
        or with_condition(host, ns, "loose", "MemberRefused", "True"),
        120,
        what="loose admitted",
    )
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, plural, app("strict", ns, restricted=True))

    # then the members' refusal is on the host object, with their message, for this generation
    loose = wait_for(lambda: with_condition(host, ns, "loose", "MemberRefused", "True"), 120, what="MemberRefused")
    refused = condition(loose, "MemberRefused")
    assert refused["reason"] == "PodSecurity"
    assert refused["message"].startswith("member member-")
    assert 'violates PodSecurity "restricted:latest"' in refused["message"]
    assert refused["observedGeneration"] == loose["metadata"]["generation"]
    # and it holds no quota: Admitted=False until its spec changes, its shards gone, the other one admitted and running
    loose = wait_for(lambda: with_condition(host, ns, "loose", "Admitted", "False"), 60, what="loose released")
    assert condition(loose, "Admitted")["reason"] == "MemberRefused"
    assert condition(loose, "MemberRefused")["status"] == "True"  # kept once its shards are pruned
    wait_condition(federation, federation_clusters, ns, "strict", "Ready", timeout=180)
    wait_for(
        lambda: all(get(federation_clusters[m], "PinApp", ns, "loose") is None for m in MEMBERS),
        60,
        what="loose's shards pruned",
    )


def test_every_kind_a_member_refuses_says_so_on_the_host_and_holds_no_quota(federation, federation_clusters, project):
    # given a project whose member namespaces enforce restricted, granted exactly what one restricted PinPod claims
    big = {**APP, "resources": {"requests": {"cpu": "6"}}, "securityContext": RESTRICTED_CONTAINER}
    strict = manifest("PinPod", "strict", "later", containers=[big])
    strict["spec"].update(restartPolicy="Always", securityContext=RESTRICTED_POD)
    grant = claim_of(parse(strict), datetime.now(UTC), profile=load_profile()).request.cpu_milli
    ns = project(cpu=f"{grant}m", memory="64Gi")
    restrict(federation_clusters, ns)
    host = federation_clusters["host"]
    # when a baseline workload of every other kind that runs pods is admitted (together they claim less)
    for kind, spec in REFUSED_KINDS.items():
        body = manifest(kind, kind.lower(), ns, **spec)
        custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, KINDS[kind].plural, body)
    for kind in REFUSED_KINDS:
        wait_for(lambda kind=kind: condition(get(host, kind, ns, kind.lower()), "Admitted"), 60, what=f"{kind} seen")
        said = condition(get(host, kind, ns, kind.lower()), "Admitted")
        assert said["reason"] != "QuotaExceeded", (kind, said)

    # then each shows the members' refusal on the host, with their message, and is no longer admitted
    for kind in REFUSED_KINDS:
        obj = wait_for(
            lambda kind=kind: with_condition(host, ns, kind.lower(), "Admitted", "False", kind=kind),
            150,
            what=f"{kind} refused and released",
        )
        refused = condition(obj, "MemberRefused")
        assert refused["status"] == "True", (kind, obj["status"])
        assert refused["reason"] == "PodSecurity"
        assert refused["message"].startswith("member member-")
        assert 'violates PodSecurity "restricted:latest"' in refused["message"]
        assert condition(obj, "Admitted")["reason"] == "MemberRefused"
    # and the grant they held is whole again: a restricted PinPod claiming all of it is admitted and runs
    strict["metadata"]["namespace"] = strict["spec"]["project"] = ns
    custom(host).create_namespaced_custom_object(GROUP, VERSION, ns, KINDS["PinPod"].plural, strict)
    wait_condition(federation, federation_clusters, ns, "strict", "Ready", kind="PinPod", timeout=180)
