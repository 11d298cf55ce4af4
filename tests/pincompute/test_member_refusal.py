"""A member refusing a workload's pods: how it is read (ReplicaFailure, FailedCreate Events), the shard's Refused
condition, the host's MemberRefused, and what admission reads of it (the end-to-end run is
tests/pincompute/operator/federation/test_member_refused.py)."""

from datetime import UTC, datetime

from pincompute.federation.refusal import admission_refused, current_refusal
from pincompute.pod_refusals import current_run, is_admission_refusal, refusal
from pincompute.status import aggregate_shards, derive_status, set_condition
from tests.support.examples import example

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
FORBIDDEN = (
    'pods "web-us-east-1a-5d9f-x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation '
    '!= false (container "app" must set securityContext.allowPrivilegeEscalation=false)'
)


def refusing_deployment():
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web-us-east-1a", "generation": 1, "labels": {"pincompute.io/zone": "us-east-1a"}},
        "spec": {"replicas": 2},
        "status": {
            "observedGeneration": 1,
            "conditions": [
                {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": FORBIDDEN}
            ],
        },
    }


def conditions(status):
    return {c["type"]: c for c in status["conditions"]}


def test_a_deployment_whose_pods_are_refused_makes_a_refused_degraded_shard():
    status = derive_status("PinApp", example("PinApp"), [refusing_deployment()], now=T0)

    said = conditions(status)
    assert said["Refused"]["status"] == "True" and said["Refused"]["reason"] == "PodSecurity"
    assert said["Refused"]["message"] == f"web-us-east-1a: {FORBIDDEN}"
    assert said["Degraded"]["status"] == "True" and said["Ready"]["status"] == "False"
    assert status["shards"][0]["state"] == "Refused"

    healed = derive_status("PinApp", {**example("PinApp"), "status": status}, [], now=T0)
    assert conditions(healed)["Refused"]["status"] == "False"  # once said, it is also unsaid


def test_the_host_shows_which_member_refused_and_why():
    refused = derive_status("PinApp", example("PinApp"), [refusing_deployment()], now=T0)

    host = conditions(aggregate_shards({"member-a": refused, "member-b": {}}))

    assert host["MemberRefused"]["status"] == "True" and host["MemberRefused"]["reason"] == "PodSecurity"
    assert host["MemberRefused"]["message"] == f"member member-a: web-us-east-1a: {FORBIDDEN}"
    assert "MemberRefused" not in conditions(aggregate_shards({"member-b": {}}))  # only when a member refuses
    assert "MemberRefused" not in conditions(aggregate_shards({"member-a": refused}, unreachable={"member-a": "t"}))


def test_admission_reads_a_refusal_of_the_present_generation_only():
    obj = {"metadata": {"generation": 4}, "status": {"conditions": []}}
    said = set_condition([], "MemberRefused", "True", "PodSecurity", "member member-a: no", 4, T0)
    refused = {**obj, "status": {"conditions": said}}

    assert current_refusal(refused)["message"] == "member member-a: no"
    assert admission_refused(current_refusal(refused)) == {
        "type": "Admitted",
        "status": "False",
        "reason": "MemberRefused",
        "message": "not admitted until its spec changes: member member-a: no",
    }
    assert current_refusal({**refused, "metadata": {"generation": 5}}) == {}  # edited: tried afresh
    assert current_refusal(obj) == {}


# -- the controllers that say it with a FailedCreate Event (pod_refusals) ------------------------------------------

WRITTEN = "2024-05-01T11:59:00Z"  # when the operator last applied the object's spec


def native(kind, name, status, *, uid="uid-1", written=WRITTEN):
    managed = [
        {"manager": "pincompute-operator", "operation": "Apply", "time": written},
        {
            "manager": "kube-controller-manager",
            "operation": "Update",
            "subresource": "status",
            "time": "2099-01-01T00:00:00Z",
        },
    ]
    return {
        "kind": kind,
        "metadata": {"name": name, "uid": uid, "creationTimestamp": "2024-05-01T11:00:00Z", "managedFields": managed},
        "spec": {},
        "status": status,
    }


def failed_create(uid="uid-1", last="2024-05-01T12:00:00Z", message=f"Error creating: {FORBIDDEN}"):
    return {
        "reason": "FailedCreate",
        "involvedObject": {"kind": "Job", "name": "backfill", "uid": uid},
        "message": message,
        "lastTimestamp": last,
    }


def test_a_job_without_pods_and_a_failed_create_since_its_spec_was_written_is_refused():
    job = native("Job", "backfill", {})

    assert refusal(job, [failed_create()]) == FORBIDDEN  # the controller's "Error creating: " is not the member's
    assert refusal(job, [failed_create(uid="uid-other")]) == ""  # another object's (a Job of the same name before)
    assert refusal(job, [failed_create(last="2024-05-01T11:58:59Z")]) == ""  # said before its spec was last written
    assert refusal(native("Job", "backfill", {"active": 2}), [failed_create()]) == ""  # its pods got created since
    complete = {"conditions": [{"type": "Complete", "status": "True"}]}
    assert refusal(native("Job", "backfill", complete), [failed_create()]) == ""


def test_the_newest_failed_create_is_what_the_member_says_whichever_recorder_wrote_it():
    older = failed_create(message="Error creating: exceeded quota")
    newer = {**failed_create(message="Error creating: violates PodSecurity"), "lastTimestamp": None}
    newer["series"] = {"lastObservedTime": "2024-05-01T12:05:00.123456Z", "count": 4}  # an events/v1 recorder's

    assert refusal(native("Job", "backfill", {}), [newer, older]) == "violates PodSecurity"


def test_a_daemonset_is_refused_while_fewer_of_its_pods_exist_than_nodes_it_runs_on():
    short = native("DaemonSet", "agent", {"desiredNumberScheduled": 3, "updatedNumberScheduled": 1})
    whole = native("DaemonSet", "agent", {"desiredNumberScheduled": 3, "updatedNumberScheduled": 3})

    assert refusal(short, [failed_create()]) == FORBIDDEN
    assert refusal(whole, [failed_create()]) == ""


def test_a_cronjobs_present_run_is_its_newest_job_of_its_present_template():
    template = {"spec": {"containers": [{"name": "report", "image": "report:2"}]}}
    cronjob = {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": template}}}}

    def run(name, created, image):
        labels = {"batch.kubernetes.io/controller-uid": name}  # the apiserver adds to a Job's template
        pod = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "report", "image": image}]}}
        return {"metadata": {"name": name, "creationTimestamp": created}, "spec": {"template": pod}}

    first, second = run("a", "2024-05-01T10:00:00Z", "report:2"), run("b", "2024-05-01T11:00:00Z", "report:2")
    before_edit = run("c", "2024-05-01T12:00:00Z", "report:1")

    assert current_run(cronjob, [first, before_edit, second]) is second
    assert current_run(cronjob, [before_edit]) is None


def test_refused_objects_are_refused_shards_present_or_never_created():
    job = {**native("Job", "backfill", {}), "spec": {"completions": 2}}

    status = derive_status(
        "PinterestJobSet", example("PinterestJobSet"), [job], now=T0, refusals={"backfill": FORBIDDEN}
    )
    pod = derive_status("PinPod", example("PinPod"), [], now=T0, refusals={"notebook": FORBIDDEN})

    assert [(s["name"], s["state"], s["message"]) for s in status["shards"]] == [("backfill", "Refused", FORBIDDEN)]
    assert conditions(status)["Refused"]["message"] == f"backfill: {FORBIDDEN}"
    assert [(s["name"], s["state"]) for s in pod["shards"]] == [("notebook", "Refused")]
    assert conditions(pod)["Refused"]["reason"] == "PodSecurity" and pod["phase"] == "Refused"


NOT_YET = (
    'pods "strict-local-1a-546687bfd6-" is forbidden: error looking up service account fed-b880f9/default: '
    'serviceaccount "default" not found'
)


def test_a_service_account_not_made_yet_is_not_a_refusal():
    """The ServiceAccount admission refuses pods until the controller-manager has made the namespace's default
    ServiceAccount; the controllers retry and get past it (seen in a clean-clone run: the workload was held as
    refused until its spec changed)."""
    waiting = refusing_deployment()
    waiting["status"]["conditions"][0]["message"] = NOT_YET

    status = derive_status("PinApp", example("PinApp"), [waiting], now=T0)

    assert "Refused" not in conditions(status) and status["shards"][0]["state"] != "Refused"
    assert refusal(native("Job", "backfill", {}), [failed_create(message=f"Error creating: {NOT_YET}")]) == ""
    newer = {**failed_create(message=f"Error creating: {NOT_YET}"), "lastTimestamp": "2024-05-01T12:05:00Z"}
    assert refusal(native("Job", "backfill", {}), [failed_create(), newer]) == ""  # the newest says "not yet"
    assert not is_admission_refusal(403, NOT_YET)
    assert is_admission_refusal(403, FORBIDDEN)
