"""Every native object we emit must survive a round trip through the official Kubernetes models.

The client's models drop unknown keys, so a round trip that changes nothing proves every field name
we emit exists in the Kubernetes API with the right nesting.
"""

import pytest
from kubernetes.client import ApiClient

from pincompute.runtime import Identity, inject, load_profile
from pincompute.translate import Placement, translate
from tests.support.examples import EXAMPLES, example, pod_specs

PROFILE = load_profile()
MODELS = {
    "Pod": "V1Pod",
    "PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "Deployment": "V1Deployment",
    "Service": "V1Service",
    "ConfigMap": "V1ConfigMap",
    "Ingress": "V1Ingress",
    "Job": "V1Job",
    "CronJob": "V1CronJob",
    "DaemonSet": "V1DaemonSet",
    "HorizontalPodAutoscaler": "V2HorizontalPodAutoscaler",
}
CLIENT = ApiClient()


def round_trip(obj):
    model = CLIENT._ApiClient__deserialize(obj, MODELS[obj["kind"]])
    return CLIENT.sanitize_for_serialization(model)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
@pytest.mark.parametrize("placement", [Placement("member-a", "us-east-1a", "us-east-1", 0, 2), Placement("member-a")])
def test_native_objects_use_only_real_fields(kind, placement):
    target = example("PinApp") if kind == "PinScaler" else None
    for obj in translate(example(kind), PROFILE, placement, target=target):
        assert round_trip(obj) == obj


@pytest.mark.parametrize("kind", sorted(set(EXAMPLES) - {"PinScaler"}))
def test_translated_pods_are_already_injected(kind):
    identity = Identity("other", "other", "other", "other", kind, "Preemptible", "elsewhere", "z9")
    for obj in translate(example(kind), PROFILE, Placement("member-a", "us-east-1a")):
        for spec in pod_specs(obj):
            again, report = inject(spec, PROFILE, identity)
            assert again == spec
            assert report.added == ()
