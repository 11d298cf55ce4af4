"""An update over a workload other tools also write changes only what its document says (``workloads.coexist``)."""

from workloads.coexist import defaults_as_live, foreign_keys, keep_foreign_metadata

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def live(spec: dict, **meta: object) -> dict:
    return {"metadata": meta, "spec": spec}


def test_the_portals_defaults_follow_the_live_object_unless_the_document_asks():
    manifest = {"spec": {"replicas": 2, "team": "ads", "costCenter": "CC-9"}}
    defaults_as_live(manifest, ["replicas"], live({"replicas": 2, "team": "search"}))
    assert manifest["spec"] == {"replicas": 2, "team": "search"}  # no cost center the object never had

    asked = {"spec": {"replicas": 2, "team": "ads", "costCenter": "CC-9"}}
    defaults_as_live(asked, ["replicas", "costCenter"], live({"replicas": 2}))
    assert asked["spec"] == {"replicas": 2, "costCenter": "CC-9"}


def test_labels_and_annotations_another_manager_owns_stay_unless_the_document_sets_them():
    managed = [
        {"manager": "kubectl-client-side-apply", "fieldsV1": {"f:metadata": {"f:annotations": {f"f:{LAST_APPLIED}": {}},
                                                                              "f:labels": {"f:app": {}}}}},
        {"manager": "pinconsole", "fieldsV1": {"f:metadata": {"f:labels": {"f:mine": {}}}}},
    ]  # fmt: skip
    current = live({}, managedFields=managed, annotations={LAST_APPLIED: "{...}"}, labels={"app": "web", "mine": "x"})
    meta: dict = {"labels": {"app": "api"}}

    keep_foreign_metadata(current, meta, "pinconsole")

    assert foreign_keys(current, "pinconsole", "labels") == {"app"}
    assert meta == {"labels": {"app": "api"}, "annotations": {LAST_APPLIED: "{...}"}}  # ours ("mine") may go
