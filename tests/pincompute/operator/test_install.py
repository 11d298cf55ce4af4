"""install-crds: a member gets the workload CRDs, tier PriorityClasses and project ClusterRoles; the host
gets the ProjectQuota CRD and nothing a member needs."""

from pincompute.kinds import KINDS, InstalledOn
from pincompute.operator.install import install
from tests.support.kubeio import FakeKube


class EstablishedKube(FakeKube):
    def get(self, res, namespace, name):
        return {"status": {"conditions": [{"type": "Established", "status": "True"}]}}


def test_a_member_gets_workload_crds_priority_classes_and_project_cluster_roles():
    kube = EstablishedKube()

    names = install(kube, role=InstalledOn.MEMBER)

    applied = [(kind, name) for _, kind, name in kube.writes("apply")]
    assert len(names) == 8 and "projectquotas.pincompute.io" not in names
    assert [name for kind, name in applied if kind == "PriorityClass"] == [
        "pincompute-reserved",
        "pincompute-ondemand",
        "pincompute-preemptible",
    ]
    assert [name for kind, name in applied if kind == "ClusterRole"] == [
        "pincompute-project-owner",
        "pincompute-project-developer",
        "pincompute-project-viewer",
    ]


def test_the_host_gets_the_workload_crds_and_its_own_but_no_priority_classes_or_roles():
    kube = EstablishedKube()

    names = install(kube, role=InstalledOn.HOST)

    workload_crds = [info.crd_name for info in KINDS.values()]
    assert names == [*workload_crds, "projectquotas.pincompute.io", "memberclusters.pincompute.io"]
    assert {kind for _, kind, _ in kube.writes("apply")} == {"CustomResourceDefinition"}
