import pytest
from hypothesis import given
from hypothesis import strategies as st

from pincompute.errors import PermanentError
from pincompute.runtime import Identity, inject, load_profile
from pincompute.runtime.profile import parse_profile

PROFILE = load_profile("v1")
IDENTITY = Identity(
    project="search",
    team="discovery",
    cost_center="cc-42",
    workload="web",
    kind="PinApp",
    tier="Reserved",
    cluster="member-a",
    zone="us-east-1a",
    shard="0",
)


def user_pod():
    return {
        "containers": [
            {"name": "app", "image": "registry.local/web:1", "env": [{"name": "PINCOMPUTE_TEAM", "value": "mine"}]}
        ]
    }


def test_profile_loads_with_native_sidecars():
    assert PROFILE.version == "v1"
    assert PROFILE.containers["pincompute-security"].build()["restartPolicy"] == "Always"
    assert "restartPolicy" not in PROFILE.containers["config-init"].build()
    assert PROFILE.containers["config-init"].image == "registry.local/pincompute/config-init:1.4.0"


def test_unknown_profile_version_fails_loudly():
    with pytest.raises(PermanentError):
        load_profile("v99")


def test_profile_with_dangling_reference_is_rejected():
    with pytest.raises(PermanentError):
        parse_profile({"version": "x", "containers": {}, "volumes": {}, "kinds": {"PinPod": {"containers": ["nope"]}}})


def test_inject_adds_sidecars_first_then_init_and_keeps_user_sidecars_after():
    pod = user_pod()
    pod["initContainers"] = [{"name": "sync", "image": "sync:1", "restartPolicy": "Always"}]
    spec, report = inject(pod, PROFILE, IDENTITY)
    assert [c["name"] for c in spec["initContainers"]] == [
        "pincompute-security",
        "pincompute-traffic",
        "config-init",
        "sync",
    ]
    assert spec["priorityClassName"] == "pincompute-reserved"
    assert {"name": "pincompute-logs", "emptyDir": {}} in spec["volumes"]
    added = {item.path for item in report.added}
    assert "spec.initContainers[name=pincompute-traffic]" in added
    assert "spec.containers[name=app].env" in added


def test_user_env_wins_and_is_reported():
    spec, report = inject(user_pod(), PROFILE, IDENTITY)
    env = {e["name"]: e["value"] for e in spec["containers"][0]["env"]}
    assert env["PINCOMPUTE_TEAM"] == "mine"
    assert env["PINCOMPUTE_PROJECT"] == "search"
    assert [k.path for k in report.kept] == ["spec.containers[name=app].env[PINCOMPUTE_TEAM]"]
    assert "kept user value" in report.kept[0].summary


def test_every_container_gets_the_log_volume():
    spec, _ = inject(user_pod(), PROFILE, IDENTITY)
    for container in spec["containers"] + spec["initContainers"]:
        assert {"name": "pincompute-logs", "mountPath": "/var/log/pincompute"} in container["volumeMounts"]


def test_user_mount_at_the_log_path_is_kept():
    pod = user_pod()
    pod["containers"][0]["volumeMounts"] = [{"name": "mine", "mountPath": "/var/log/pincompute"}]
    spec, report = inject(pod, PROFILE, IDENTITY)
    assert spec["containers"][0]["volumeMounts"] == [{"name": "mine", "mountPath": "/var/log/pincompute"}]
    assert any("kept user volume" in k.summary for k in report.kept)


def test_daemon_and_jobs_get_no_traffic_sidecar():
    for kind in ("PinterestDaemon", "PinterestJobSet", "PinterestCronJob", "PinterestTrainingJob"):
        spec, _ = inject(user_pod(), PROFILE, Identity("p", "t", "c", "w", kind, "OnDemand"))
        names = [c["name"] for c in spec["initContainers"]]
        assert "pincompute-traffic" not in names
        assert "pincompute-security" in names


def test_injected_annotation_is_stable():
    assert PROFILE.annotations_for("PinApp") == {
        "pincompute.io/runtime-profile": "v1",
        "pincompute.io/injected": "pincompute-security,pincompute-traffic,config-init,pincompute-logs,"
        "identity-env,priority-class",
    }


def test_standard_labels():
    labels = PROFILE.labels_for(IDENTITY)
    assert labels["app.kubernetes.io/managed-by"] == "pincompute"
    assert labels["pincompute.io/tier"] == "reserved"
    assert labels["pincompute.io/workload"] == "web"


names = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
env_vars = st.lists(
    st.tuples(st.sampled_from(["A", "B", "PINCOMPUTE_ZONE", "PINCOMPUTE_KIND"]), names),
    unique_by=lambda t: t[0],
    max_size=4,
)


@given(
    st.lists(st.tuples(names, env_vars), min_size=1, max_size=3, unique_by=lambda t: t[0]),
    st.sampled_from(sorted(PROFILE.kinds)),
)
def test_inject_is_idempotent_and_loses_nothing(containers, kind):
    pod = {
        "containers": [
            {"name": f"u{name}", "image": "img:1", "env": [{"name": k, "value": v} for k, v in env]}
            for name, env in containers
        ]
    }
    identity = Identity("p", "t", "c", "w", kind, "Preemptible", "c1", "z1")
    once, first_report = inject(pod, PROFILE, identity)
    twice, second_report = inject(once, PROFILE, identity)
    assert twice == once
    assert second_report.added == ()
    assert first_report.added
    for original, result in zip(pod["containers"], once["containers"], strict=True):
        assert result["env"][: len(original["env"])] == original["env"]
    names_in_init = [c["name"] for c in once["initContainers"]]
    assert len(names_in_init) == len(set(names_in_init))
