"""The host's own checks, whoever wrote the object: spec.project against the namespace's project, the spec valid."""

from pincompute.federation.host_checks import INVALID_SPEC, PROJECT_MISMATCH, host_problems, verdict_message
from pincompute.federation.propagation import spec_hash
from pincompute.federation.revisions import admitted_view, revision_manifest
from tests.support.examples import example


def quota_of(project: str) -> dict:
    return {"kind": "ProjectQuota", "metadata": {"namespace": f"proj-{project}"}, "spec": {"project": project}}


def in_namespace(manifest: dict, namespace: str) -> dict:
    return {**manifest, "metadata": {**manifest["metadata"], "namespace": namespace}}


def test_a_workload_naming_another_project_than_its_namespaces_is_refused_naming_both():
    app = in_namespace(example("PinApp"), "proj-search")
    app["spec"]["project"] = "ads"

    problems = host_problems(app, quota_of("search"))

    assert problems.reason == PROJECT_MISMATCH
    (error,) = problems.errors
    assert error.path == "spec.project"
    assert "names project 'ads', but namespace proj-search belongs to project 'search'" in error.message


def test_a_valid_workload_of_the_namespaces_project_has_nothing_against_it():
    app = in_namespace(example("PinApp"), "proj-search")
    app["spec"]["project"] = "search"

    assert not host_problems(app, quota_of("search"))
    assert not host_problems(app, None)  # no project's namespace: admission says so on its own


def test_an_invalid_spec_lists_every_error_with_its_field_path_and_counts_what_it_does_not_show():
    app = in_namespace(example("PinApp"), "proj-search")
    app["spec"]["project"] = "search"
    app["spec"]["replicas"] = "many"
    app["spec"]["template"]["containers"][0]["image"] = ""
    for index in range(6):
        app["spec"][f"unknown{index}"] = 1

    problems = host_problems(app, quota_of("search"))

    assert problems.reason == INVALID_SPEC
    paths = [e.path for e in problems.errors]
    assert "spec.replicas" in paths and "spec.template.containers[0].image" in paths
    message = verdict_message(problems, admitted_generation=3)
    assert message.startswith("the change is not admitted (generation 3 keeps running): ")
    assert message.endswith(f"; and {len(paths) - 5} more")


def test_the_admitted_view_is_the_spec_admission_recorded_at_its_generation():
    app = in_namespace(example("PinApp"), "proj-search")
    app["metadata"].update(uid="u-1", generation=4)
    admitted = revision_manifest(app, 1)
    grown = {**app, "spec": {**app["spec"], "replicas": 50}, "metadata": {**app["metadata"], "generation": 5}}

    view = admitted_view(grown, 4, spec_hash(app["spec"]), [admitted])

    assert view is not None and view["spec"] == app["spec"] and view["metadata"]["generation"] == 4
    assert admitted_view(grown, 5, spec_hash(grown["spec"]), []) == grown  # nothing waits: the object itself
    assert admitted_view(grown, 4, spec_hash(app["spec"]), []) is None  # the admitted spec is not known (yet)
    stranger = {**admitted, "metadata": {**admitted["metadata"], "ownerReferences": [{"uid": "other"}]}}
    assert admitted_view(grown, 4, spec_hash(app["spec"]), [stranger]) is None
