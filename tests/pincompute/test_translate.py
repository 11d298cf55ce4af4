import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincompute.runtime import load_profile
from pincompute.translate import (
    KUBEFLOW_PYTORCH,
    Placement,
    container_image_patch,
    diff_objects,
    pod_needs_recreate,
    restart_container_plan,
    split_replicas,
    translate,
)
from pincompute.translate.pods import KILL_COMMAND as KILL
from pincompute.translate.pods import restart_summary
from tests.support.examples import EXAMPLES, example, pod_specs

PROFILE = load_profile()
HERE = Placement(cluster="member-a", zone="us-east-1a", region="us-east-1", shard_index=0, shard_count=2)


def by_kind(objects, kind):
    return [o for o in objects if o["kind"] == kind]


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_translate_is_deterministic(kind):
    first = json.dumps(translate(example(kind), PROFILE, HERE))
    second = json.dumps(translate(example(kind), PROFILE, HERE))
    assert first == second


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_every_object_is_owned_and_labelled(kind):
    cr = example(kind)
    for obj in translate(cr, PROFILE, HERE):
        metadata = obj["metadata"]
        assert metadata["ownerReferences"] == [
            {
                "apiVersion": "pincompute.io/v1",
                "kind": kind,
                "name": cr["metadata"]["name"],
                "uid": cr["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        assert metadata["namespace"] == "search"
        assert metadata["labels"]["pincompute.io/workload"] == cr["metadata"]["name"]
        assert metadata["labels"]["app.kubernetes.io/managed-by"] == "pincompute"
        assert metadata["labels"]["pincompute.io/tier"] == "reserved"


@pytest.mark.parametrize("kind", sorted(set(EXAMPLES) - {"PinScaler"}))
def test_user_containers_survive_and_runtime_is_injected(kind):
    cr = example(kind)
    specs = [s for o in translate(cr, PROFILE, HERE) for s in pod_specs(o)]
    assert specs
    for spec in specs:
        for user in cr["spec"].get("containers") or cr["spec"].get("template", {}).get("containers"):
            [out] = [c for c in spec["containers"] if c["name"] == user["name"]]
            assert out["image"] == user["image"]
            for key in ("ports", "args", "command", "readinessProbe"):
                if key in user:
                    assert out[key][: len(user[key])] == user[key] if key == "ports" else out[key] == user[key]
            assert [e for e in out["env"] if e in user.get("env", [])] == user.get("env", [])
            for section, values in user.get("resources", {}).items():
                assert values.items() <= out["resources"][section].items()
        init = [c["name"] for c in spec["initContainers"]]
        assert len(init) == len(set(init))
        assert "pincompute-security" in init
        assert spec["priorityClassName"] == "pincompute-reserved"


def test_pinpod_gets_pvc_and_stopping_removes_only_the_pod():
    cr = example("PinPod")
    objects = translate(cr, PROFILE, HERE)
    [pvc] = by_kind(objects, "PersistentVolumeClaim")
    assert pvc["spec"]["resources"]["requests"]["storage"] == "10Gi"
    [pod] = by_kind(objects, "Pod")
    assert {"name": "pincompute-data", "mountPath": "/home/jovyan"} in pod["spec"]["containers"][0]["volumeMounts"]
    cr["spec"]["operations"] = {"stopped": True}
    assert [o["kind"] for o in translate(cr, PROFILE, HERE)] == ["PersistentVolumeClaim"]


def test_pinapp_one_deployment_per_zone_and_pause():
    cr = example("PinApp")
    everywhere = Placement(cluster="member-a")
    deployments = by_kind(translate(cr, PROFILE, everywhere), "Deployment")
    assert {d["metadata"]["name"]: d["spec"]["replicas"] for d in deployments} == {
        "web-us-east-1a": 3,
        "web-us-east-1b": 2,
    }
    assert deployments[0]["spec"]["template"]["spec"]["nodeSelector"]["topology.kubernetes.io/zone"]
    cr["spec"]["operations"] = {"paused": True}
    assert all(d["spec"]["replicas"] == 0 for d in by_kind(translate(cr, PROFILE, everywhere), "Deployment"))
    [service] = by_kind(translate(cr, PROFILE, everywhere), "Service")
    assert service["spec"]["selector"] == {"pincompute.io/kind": "PinApp", "pincompute.io/workload": "web"}


def test_pinapp_autoscaled_leaves_replicas_to_the_hpa():
    [deployment] = by_kind(translate(example("PinApp"), PROFILE, HERE, autoscaled=True), "Deployment")
    assert "replicas" not in deployment["spec"]


def test_restarted_at_changes_the_pod_template():
    cr = example("PinterestService")
    before = by_kind(translate(cr, PROFILE, HERE), "Deployment")[0]["spec"]["template"]
    cr["spec"]["operations"] = {"restartedAt": "2024-05-01T12:00:00Z"}
    after = by_kind(translate(cr, PROFILE, HERE), "Deployment")[0]["spec"]["template"]
    assert after["metadata"]["annotations"]["pincompute.io/restartedAt"] == "2024-05-01T12:00:00Z"
    assert before != after


def test_service_config_is_mounted_and_hashed():
    cr = example("PinterestService")
    objects = translate(cr, PROFILE, HERE)
    [config] = by_kind(objects, "ConfigMap")
    assert config["data"] == cr["spec"]["config"]
    [deployment] = by_kind(objects, "Deployment")
    template = deployment["spec"]["template"]
    first_hash = template["metadata"]["annotations"]["pincompute.io/config-hash"]
    mounts = template["spec"]["containers"][0]["volumeMounts"]
    assert {"mountPath": "/etc/pincompute/config", "name": "pincompute-config", "readOnly": True} in mounts
    [ingress] = by_kind(objects, "Ingress")
    assert ingress["spec"]["rules"][0]["host"] == "api.search.example.com"
    cr["spec"]["config"]["feature_flags"] = "a,b,c"
    changed = by_kind(translate(cr, PROFILE, HERE), "Deployment")[0]["spec"]["template"]
    assert changed["metadata"]["annotations"]["pincompute.io/config-hash"] != first_hash


def test_jobset_is_an_indexed_job_with_shard_env():
    [job] = translate(example("PinterestJobSet"), PROFILE, HERE)
    assert job["spec"]["completionMode"] == "Indexed"
    assert (job["spec"]["completions"], job["spec"]["parallelism"]) == (8, 4)
    env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert (
        env["SHARD_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"]
        == "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    )
    assert env["SHARD_COUNT"]["value"] == "8"


def test_pause_suspends_jobs_and_cron_and_daemons_match_no_node():
    for kind in ("PinterestJobSet", "PinterestCronJob"):
        cr = example(kind)
        cr["spec"]["operations"] = {"paused": True}
        assert translate(cr, PROFILE, HERE)[0]["spec"]["suspend"] is True
    cr = example("PinterestDaemon")
    cr["spec"]["operations"] = {"paused": True}
    [daemon] = translate(cr, PROFILE, HERE)
    assert daemon["spec"]["template"]["spec"]["nodeSelector"]["pincompute.io/daemon-paused"] == "true"


def test_cronjob_fields():
    [cron] = translate(example("PinterestCronJob"), PROFILE, HERE)
    assert (cron["spec"]["schedule"], cron["spec"]["timeZone"], cron["spec"]["concurrencyPolicy"]) == (
        "30 2 * * *",
        "UTC",
        "Forbid",
    )


def test_training_without_kubeflow_uses_indexed_job_and_headless_service():
    objects = translate(example("PinterestTrainingJob"), PROFILE, HERE)
    [job], [service] = by_kind(objects, "Job"), by_kind(objects, "Service")
    assert service["spec"]["clusterIP"] == "None"
    template = job["spec"]["template"]["spec"]
    assert template["subdomain"] == service["metadata"]["name"]
    env = {e["name"]: e.get("value") for e in template["containers"][0]["env"]}
    assert env["MASTER_ADDR"] == "ranker-0.ranker"
    assert env["WORLD_SIZE"] == "4"
    assert job["spec"]["completions"] == 4


def test_training_tensorflow_gets_tf_config():
    cr = example("PinterestTrainingJob")
    cr["spec"]["framework"] = "TensorFlow"
    del cr["spec"]["port"]
    [job] = by_kind(translate(cr, PROFILE, HERE), "Job")
    env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert '"index": $(RANK)' in env["TF_CONFIG"]
    assert "ranker-2.ranker:2222" in env["TF_CONFIG"]


def test_training_with_kubeflow_emits_pytorchjob():
    [job] = translate(example("PinterestTrainingJob"), PROFILE, HERE, capabilities=frozenset({KUBEFLOW_PYTORCH}))
    assert job["apiVersion"] == "kubeflow.org/v1"
    replicas = job["spec"]["pytorchReplicaSpecs"]
    assert (replicas["Master"]["replicas"], replicas["Worker"]["replicas"]) == (1, 3)


def test_scaler_hpa_per_zone_with_split_bounds_and_schedule():
    cr = example("PinScaler")
    [hpa] = translate(cr, PROFILE, HERE)
    assert hpa["spec"]["scaleTargetRef"]["name"] == "web-us-east-1a"
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (1, 5)
    assert hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 300
    types = [m["type"] for m in hpa["spec"]["metrics"]]
    assert types == ["Resource", "Pods", "External"]
    monday_ten_new_york = datetime(2024, 5, 6, 14, 0, tzinfo=UTC)
    [scheduled] = translate(cr, PROFILE, HERE, now=monday_ten_new_york)
    assert (scheduled["spec"]["minReplicas"], scheduled["spec"]["maxReplicas"]) == (3, 10)
    both = translate(cr, PROFILE, Placement("member-a"), target=example("PinApp"))
    assert [h["metadata"]["name"] for h in both] == ["web-scaler-us-east-1a", "web-scaler-us-east-1b"]


def test_image_only_change_is_patched_in_place():
    [live] = by_kind(translate(example("PinPod"), PROFILE, HERE), "Pod")
    live["spec"]["nodeName"] = "node-1"  # apiserver-added fields must not force a recreate
    cr = example("PinPod")
    cr["spec"]["containers"][0]["image"] = "registry.local/search/web:1.5.0"
    [desired] = by_kind(translate(cr, PROFILE, HERE), "Pod")
    assert not pod_needs_recreate(live, desired)
    assert container_image_patch(live, desired) == {
        "spec": {"containers": [{"name": "jupyter", "image": "registry.local/search/web:1.5.0"}]}
    }
    assert container_image_patch(live, live) == {}
    cr["spec"]["containers"][0]["args"] = ["--debug"]
    [recreate] = by_kind(translate(cr, PROFILE, HERE), "Pod")
    assert container_image_patch(live, recreate) is None


def _running(pod, *running):
    """The pod as a kubelet reports it: Running, with ``running`` containers started."""
    started = {"running": {"startedAt": "2024-05-01T00:00:00Z"}}
    states = [{"name": c, "restartCount": 0, "state": started} for c in running]
    return {**pod, "status": {"phase": "Running", "containerStatuses": states, "initContainerStatuses": []}}


def test_restart_container_plan_is_idempotent():
    cr = example("PinPod")
    cr["spec"]["operations"] = {"restartContainer": {"container": "sync", "requestedAt": "2024-05-01T00:00:00Z"}}
    [pod] = by_kind(translate(cr, PROFILE, HERE), "Pod")
    pods = [_running(pod, "sync")]
    [action] = restart_container_plan(cr, pods)
    assert (action.pod, action.container, action.action, action.command) == ("notebook", "sync", "exec-kill", KILL)
    cr["status"] = {"lastContainerRestart": "2024-05-01T00:00:00Z"}
    assert restart_container_plan(cr, pods) == []


def test_restart_container_plan_leaves_pods_not_running_and_deletes_where_no_restart_in_place():
    cr = example("PinPod")
    cr["spec"]["operations"] = {"restartContainer": {"container": "sync", "requestedAt": "2024-05-01T00:00:00Z"}}
    [pod] = by_kind(translate(cr, PROFILE, HERE), "Pod")
    assert restart_container_plan(cr, [pod]) == []  # pending: nothing runs to restart
    assert restart_container_plan(cr, [{**_running(pod, "sync"), "status": {"phase": "Succeeded"}}]) == []
    [waiting] = restart_container_plan(cr, [_running(pod)])  # running pod, the container is not (crash loop)
    assert (waiting.action, waiting.why) == ("delete-pod", "the container is not running")
    never = _running({**pod, "spec": {**pod["spec"], "restartPolicy": "Never"}}, "sync", "jupyter")
    assert [a.action for a in restart_container_plan(cr, [never])] == ["exec-kill"]  # a sidecar restarts anyway
    cr["spec"]["operations"]["restartContainer"]["container"] = "jupyter"
    [deleted] = restart_container_plan(cr, [never])
    assert (deleted.action, deleted.why) == ("delete-pod", "restartPolicy Never")


def test_restart_summary_says_what_was_done():
    assert restart_summary("app", ["a", "b"], {}) == "restarted container app in 2 pods"
    assert restart_summary("app", [], {"a": "no exec (403 forbidden)"}) == "deleted 1 pod: no exec (403 forbidden)"
    both = restart_summary("app", ["a"], {"b": "restartPolicy Never", "c": "restartPolicy Never"})
    assert both == "restarted container app in 1 pod; deleted 2 pods: restartPolicy Never"
    assert restart_summary("app", [], {}) == "container app: no running pod runs it"


def test_diff_creates_updates_and_prunes_only_owned_objects():
    desired = translate(example("PinterestService"), PROFILE, HERE)
    assert diff_objects(desired, desired).empty
    live = [dict(o) for o in desired if o["kind"] != "Ingress"]
    stale = {**desired[0], "metadata": {**desired[0]["metadata"], "name": "api-old"}}
    foreign = {
        **desired[0],
        "metadata": {
            **desired[0]["metadata"],
            "name": "other",
            "ownerReferences": [{"uid": "someone-else", "controller": True}],
        },
    }
    changed = example("PinterestService")
    changed["spec"]["replicas"] = 7
    plan = diff_objects(translate(changed, PROFILE, HERE), [*live, stale, foreign])
    assert [o["kind"] for o in plan.create] == ["Ingress"]
    assert [o["kind"] for o in plan.update] == ["Deployment"]
    assert [o["metadata"]["name"] for o in plan.prune] == ["api-old"]


@given(
    st.integers(0, 10_000), st.lists(st.text("abcdefgh", min_size=1, max_size=3), min_size=1, max_size=6, unique=True)
)
def test_split_replicas_is_balanced(total, zones):
    split = split_replicas(total, zones)
    assert sum(split.values()) == total
    assert max(split.values()) - min(split.values()) <= 1
    assert list(split) == zones
    assert split == split_replicas(total, zones)


@settings(max_examples=25, deadline=None)
@given(
    replicas=st.integers(0, 50),
    image_tag=st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True),
    env_value=st.text(min_size=0, max_size=10),
)
def test_translate_keeps_user_fields_and_is_stable(replicas, image_tag, env_value):
    cr = example("PinterestService")
    cr["spec"]["replicas"] = replicas
    cr["spec"]["containers"][0]["image"] = f"registry.local/search/web:{image_tag}"
    cr["spec"]["containers"][0]["env"] = [{"name": "PINCOMPUTE_ZONE", "value": env_value}]
    first = translate(cr, PROFILE, HERE)
    assert first == translate(cr, PROFILE, HERE)
    [deployment] = by_kind(first, "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].endswith(image_tag)
    assert [e["value"] for e in container["env"] if e["name"] == "PINCOMPUTE_ZONE"] == [env_value]
    assert deployment["spec"]["replicas"] == replicas
