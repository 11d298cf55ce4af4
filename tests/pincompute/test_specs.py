import pytest

from pincompute.errors import SpecInvalid
from pincompute.quantity import Resources, parse_memory
from pincompute.quota import workload_request
from pincompute.runtime import load_profile
from pincompute.specs import KINDS, PinApp, parse, validate
from pincompute.tiers import Tier
from tests.support.examples import EXAMPLES, example


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_every_example_is_valid(kind):
    assert validate(example(kind)) == []
    assert parse(example(kind)).kind == kind


def test_every_kind_has_an_example():
    assert set(EXAMPLES) == set(KINDS)


def test_five_mistakes_give_five_errors_with_paths():
    manifest = example("PinApp")
    manifest["spec"]["replicas"] = -2
    manifest["spec"]["template"]["containers"][0]["image"] = "Not An Image"
    manifest["spec"]["template"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    manifest["spec"]["tier"] = "Gold"
    manifest["spec"]["colour"] = "blue"
    errors = validate(manifest)
    assert sorted(e.path for e in errors) == sorted(
        [
            "spec.replicas",
            "spec.template.containers[0].image",
            "spec.template.containers[0].resources.requests.cpu",
            "spec.tier",
            "spec.colour",
        ]
    )
    assert all(e.message for e in errors)


def test_parse_raises_with_every_error():
    manifest = example("PinterestJobSet")
    manifest["metadata"]["name"] = "Bad_Name"
    manifest["spec"]["parallelism"] = 20
    with pytest.raises(SpecInvalid) as caught:
        parse(manifest)
    assert {e.path for e in caught.value.errors} == {"metadata.name", "spec.parallelism"}


def test_unknown_kind_and_api_version():
    manifest = example("PinPod")
    manifest["kind"] = "PinBoard"
    manifest["apiVersion"] = "apps/v1"
    paths = {e.path for e in validate(manifest)}
    assert paths == {"kind", "apiVersion"}


def test_missing_name_and_required_fields():
    manifest = {"apiVersion": "pincompute.io/v1", "kind": "PinterestCronJob", "metadata": {}, "spec": {}}
    paths = {e.path for e in validate(manifest)}
    assert paths == {"metadata.name", "spec.project", "spec.containers", "spec.schedule"}


def test_duplicate_and_reserved_container_names():
    manifest = example("PinterestService")
    manifest["spec"]["containers"].append({"name": "app", "image": "busybox"})
    manifest["spec"]["sidecars"] = [
        {"name": "config-init", "image": "busybox"},
        {"name": "pincompute-mine", "image": "busybox"},
    ]
    messages = {e.path: e.message for e in validate(manifest)}
    assert "already used" in messages["spec.containers[1].name"]
    assert "reserved" in messages["spec.sidecars[0].name"]
    assert "reserved" in messages["spec.sidecars[1].name"]


def test_reserved_env_for_shards_and_training():
    manifest = example("PinterestJobSet")
    manifest["spec"]["containers"][0]["env"] = [{"name": "SHARD_INDEX", "value": "3"}]
    assert [e.path for e in validate(manifest)] == ["spec.containers[0].env[0].name"]


def test_scaler_bounds_and_bad_cron():
    manifest = example("PinScaler")
    manifest["spec"]["minReplicas"] = 12
    manifest["spec"]["schedules"][0]["cron"] = "0 25 * * *"
    manifest["spec"]["schedules"][0]["timeZone"] = "Mars/Olympus"
    manifest["spec"]["metrics"].append({"type": "Pods"})
    paths = {e.path for e in validate(manifest)}
    assert paths == {
        "spec.minReplicas",
        "spec.schedules[0].cron",
        "spec.schedules[0].timeZone",
        "spec.metrics[3].metric",
        "spec.metrics[3].targetAverageValue",
    }


def test_cronjob_rejects_six_fields():
    manifest = example("PinterestCronJob")
    manifest["spec"]["schedule"] = "0 0 * * * *"
    [error] = validate(manifest)
    assert error.path == "spec.schedule"
    assert "5 fields" in error.message


def test_app_zone_order_must_name_listed_zones():
    manifest = example("PinApp")
    manifest["spec"]["rollout"]["zoneOrder"] = ["us-west-2a"]
    manifest["spec"]["service"]["ports"][0]["targetPort"] = "grpc"
    paths = {e.path for e in validate(manifest)}
    assert paths == {"spec.rollout.zoneOrder[0]", "spec.service.ports[0].targetPort"}


def test_request_above_limit_and_mount_without_volume():
    manifest = example("PinPod")
    container = manifest["spec"]["containers"][0]
    container["resources"]["requests"]["memory"] = "2Gi"
    container["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    paths = {e.path for e in validate(manifest)}
    assert paths == {"spec.containers[0].resources.requests.memory", "spec.containers[0].volumeMounts[0].name"}


def test_operations_are_checked():
    manifest = example("PinPod")
    manifest["spec"]["operations"] = {
        "paused": True,
        "restartedAt": "yesterday",
        "restartContainer": {"container": "nope", "requestedAt": "2024-01-01T00:00:00Z"},
    }
    paths = {e.path for e in validate(manifest)}
    assert paths == {
        "spec.operations.paused",
        "spec.operations.restartedAt",
        "spec.operations.restartContainer.container",
    }


def test_wrong_types_are_reported_not_crashed():
    manifest = example("PinApp")
    manifest["spec"]["template"] = {"containers": "app"}
    manifest["spec"]["zones"] = "us-east-1a"
    manifest["spec"]["replicas"] = True
    paths = {e.path for e in validate(manifest)}
    assert paths == {"spec.template.containers", "spec.zones", "spec.replicas"}


def test_parse_gives_typed_defaults():
    manifest = example("PinApp")
    del manifest["spec"]["tier"]
    del manifest["spec"]["rollout"]
    app = parse(manifest)
    assert isinstance(app, PinApp)
    assert app.meta.tier is Tier.ONDEMAND
    assert app.rollout.zone_order == ("us-east-1a", "us-east-1b")


def test_training_gpus_go_to_first_container():
    job = parse(example("PinterestTrainingJob"))
    assert job.world_size == 4
    assert job.pod.containers[0].effective_request().gpu == 1


def test_workload_request_multiplies_pods():
    app = parse(example("PinApp"))
    assert workload_request(app) == Resources(2500, 5 * parse_memory("512Mi"))
    jobs = parse(example("PinterestJobSet"))
    assert workload_request(jobs) == Resources(4000, 4 * parse_memory("2Gi"))
    daemon = parse(example("PinterestDaemon"))
    assert workload_request(daemon, node_count=10).cpu_milli == 10 * 100
    assert workload_request(parse(example("PinScaler"))) == Resources()


def test_workload_request_counts_platform_sidecars():
    app = parse(example("PinApp"))
    with_profile = workload_request(app, profile=load_profile())
    # security 50m + traffic 100m run alongside the app; config-init (50m) is smaller than that phase
    assert with_profile.cpu_milli == 5 * (500 + 150)
