"""The write plan for a fake live state: create, leave alone, update, prune, per-container pod update."""

import copy

from pincompute.operator.apply import comparable_pod, plan_writes
from pincompute.placement import Placement
from pincompute.runtime import load_profile
from pincompute.translate import translate
from tests.support.examples import example


def _desired(cr, zone="us-east-1a"):
    return translate(cr, load_profile(), Placement(cluster="member-a", zone=zone))


def _live(objects):
    """What the apiserver returns: our fields plus defaults and admission additions."""
    live = copy.deepcopy(objects)
    for obj in live:
        obj["metadata"]["uid"] = f"uid-of-{obj['metadata']['name']}"
        obj["metadata"]["resourceVersion"] = "7"
        if obj["kind"] == "Pod":
            spec = obj["spec"]
            spec.setdefault("volumes", []).append({"name": "kube-api-access-abcde", "projected": {"sources": []}})
            for container in spec["containers"] + spec.get("initContainers", []):
                container.setdefault("volumeMounts", []).append(
                    {"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
                )
                container["terminationMessagePath"] = "/dev/termination-log"
            spec["tolerations"] = [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                }
            ]
            spec["nodeName"] = "kwok-member-a-001"
    return live


def _pinpod():
    cr = example("PinPod")
    del cr["spec"]["persistence"]
    return cr


def test_nothing_live_means_apply_everything():
    cr = example("PinApp")
    desired = _desired(cr)

    plan = plan_writes(desired, [], owner_uid="uid-web", owner_name="web")

    assert sorted(o["kind"] for o in plan.apply) == ["Deployment", "Service"]
    assert not plan.prune and not plan.recreate


def test_live_state_with_server_defaults_needs_no_write():
    cr = _pinpod()
    desired = _desired(cr)

    plan = plan_writes(desired, _live(desired), owner_uid="uid-notebook", owner_name="notebook")

    assert plan.empty


def test_replica_drift_is_applied_and_extra_owned_object_is_pruned():
    cr = example("PinApp")
    desired = _desired(cr)
    live = _live(desired)
    live[0 if live[0]["kind"] == "Deployment" else 1]["spec"]["replicas"] = 9
    stray = copy.deepcopy(live[0])
    stray["metadata"]["name"] = "web-us-east-1z"
    foreign = copy.deepcopy(stray)
    foreign["metadata"]["name"] = "someone-elses"
    foreign["metadata"]["ownerReferences"][0]["uid"] = "other"

    plan = plan_writes(desired, [*live, stray, foreign], owner_uid="uid-web", owner_name="web")

    assert [o["kind"] for o in plan.apply] == ["Deployment"]
    assert [o["metadata"]["name"] for o in plan.prune] == ["web-us-east-1z"]


def test_image_only_change_patches_the_pod_in_place():
    cr = _pinpod()
    live = _live(_desired(cr))
    cr["spec"]["containers"][0]["image"] = "registry.local/search/web:9.9"

    plan = plan_writes(_desired(cr), live, owner_uid="uid-notebook", owner_name="notebook")

    assert plan.recreate == [] and len(plan.patch_pods) == 1
    assert plan.patch_pods[0].patch == {
        "spec": {"containers": [{"name": "jupyter", "image": "registry.local/search/web:9.9"}]}
    }


def test_other_pod_change_or_restart_recreates_the_pod():
    cr = _pinpod()
    live = _live(_desired(cr))
    changed = copy.deepcopy(cr)
    changed["spec"]["containers"][0]["env"] = [{"name": "LOG_LEVEL", "value": "debug"}]
    restarted = copy.deepcopy(cr)
    restarted["spec"]["operations"] = {"restartedAt": "2030-01-01T00:00:00Z"}

    for new in (changed, restarted):
        plan = plan_writes(_desired(new), live, owner_uid="uid-notebook", owner_name="notebook")
        assert [p["metadata"]["name"] for p in plan.recreate] == ["notebook"]


def test_terminating_object_is_waited_for_not_written():
    cr = _pinpod()
    live = _live(_desired(cr))
    live[0]["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
    cr["spec"]["containers"][0]["env"] = []

    plan = plan_writes(_desired(cr), live, owner_uid="uid-notebook", owner_name="notebook")

    assert plan.empty and plan.waiting == ["Pod/notebook"]


def test_comparable_pod_keeps_user_tolerations_and_volumes():
    desired = {
        "spec": {
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
            "volumes": [{"name": "data"}],
        }
    }
    live = {
        "spec": {
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists"},
                {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"},
            ],
            "volumes": [{"name": "data"}, {"name": "kube-api-access-x"}],
        }
    }

    result = comparable_pod(live, desired)

    assert result["spec"] == {
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
        "volumes": [{"name": "data"}],
    }


def test_empty_values_dropped_by_the_apiserver_are_not_a_change():
    cr = _pinpod()
    del cr["spec"]["costCenter"]  # PINCOMPUTE_COST_CENTER gets value "" which the apiserver omits
    desired = _desired(cr)
    live = _live(desired)
    for container in live[0]["spec"]["containers"] + live[0]["spec"]["initContainers"]:
        for env in container.get("env", []):
            if env.get("value") == "":
                del env["value"]

    assert plan_writes(desired, live, owner_uid="uid-notebook", owner_name="notebook").empty


def test_an_app_taken_over_by_a_scaler_is_applied_once_to_release_replicas():
    cr = example("PinApp")
    desired = translate(cr, load_profile(), Placement(cluster="member-a", zone="us-east-1a"), autoscaled=True)
    live = _live(desired)
    deployment = next(o for o in live if o["kind"] == "Deployment")
    deployment["spec"]["replicas"] = 3
    deployment["metadata"]["managedFields"] = [
        {"manager": "pincompute-operator", "operation": "Apply", "fieldsV1": {"f:spec": {"f:replicas": {}}}}
    ]

    plan = plan_writes(desired, live, owner_uid="uid-web", owner_name="web")

    assert [o["kind"] for o in plan.apply] == ["Deployment"] and "replicas" not in plan.apply[0]["spec"]
    deployment["metadata"]["managedFields"][0]["fieldsV1"] = {"f:spec": {"f:template": {}}}
    assert plan_writes(desired, live, owner_uid="uid-web", owner_name="web").empty
