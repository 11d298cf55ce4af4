"""The form generated from each kind's schema: every example validates and round-trips (form -> manifest ->
form); the YAML and the form stay in sync both ways, and a YAML edit the form has not seen survives a form change
(the three-way merge); list items are added and removed; the schema's descriptions are the help texts."""

from __future__ import annotations

import copy

import pytest

from pincompute.specs import KINDS, validate
from workloads.examples import PICK, example
from workloads.forms import WorkloadForm, add_item, get_path, remove_item, set_path

PROJECTS = ["my-project", "other"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_has_a_valid_example_and_a_reason_to_pick_it(kind):
    assert validate(example(kind)) == []
    assert PICK[kind]


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kinds_form_round_trips_its_example(kind):
    shown = WorkloadForm(kind, example(kind), PROJECTS)
    stripped = copy.deepcopy(example(kind))
    for leaf in shown.leaves.values():
        set_path(stripped, leaf.path, None)

    rebuilt = WorkloadForm(kind, stripped, PROJECTS, data=shown.data).apply(stripped)

    assert validate(rebuilt) == []
    assert WorkloadForm(kind, rebuilt, PROJECTS).data == shown.data
    assert get_path(rebuilt, ("metadata", "name")) == example(kind)["metadata"]["name"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_unchanged_form_changes_nothing(kind):
    shown = WorkloadForm(kind, example(kind), PROJECTS)

    assert list(WorkloadForm(kind, example(kind), PROJECTS, data=shown.data).changes()) == []


def test_the_form_has_the_fields_people_set_with_the_schemas_help():
    app = WorkloadForm("PinApp", example("PinApp"), PROJECTS)
    jobs = WorkloadForm("PinterestJobSet", example("PinterestJobSet"), PROJECTS)

    assert {"f~metadata~name", "project", "f~spec~tier", "f~spec~replicas", "f~spec~zones"} <= set(app.fields)
    container = "f~spec~template~containers~0~"
    for name in ("image", "resources~requests~cpu", "resources~requests~memory", "ports~0~containerPort", "env~0~name"):
        assert container + name in app.fields
    assert "f~spec~team" not in app.fields and "f~spec~operations~paused" not in app.fields
    assert app.fields["f~spec~tier"].choices[1:] == [
        ("Reserved", "Reserved"),
        ("OnDemand", "OnDemand"),
        ("Preemptible", "Preemptible"),
    ]
    assert "Shards running at once" in jobs.fields["f~spec~parallelism"].help_text
    assert "at least 1" in jobs.fields["f~spec~shards"].help_text
    assert app.fields["project"].choices == [("my-project", "my-project"), ("other", "other")]


def test_a_form_change_rewrites_the_yaml_and_the_new_yaml_renders_the_same_form():
    base = example("PinApp")
    shown = WorkloadForm("PinApp", base, PROJECTS)
    data = {**shown.data, "f~spec~replicas": "5", "f~spec~template~containers~0~image": "registry.local/web:2"}

    merged = WorkloadForm("PinApp", base, PROJECTS, data=data).apply(base)

    assert merged["spec"]["replicas"] == 5
    assert merged["spec"]["template"]["containers"][0]["image"] == "registry.local/web:2"
    assert (
        merged["spec"]["template"]["containers"][0]["readinessProbe"]
        == base["spec"]["template"]["containers"][0]["readinessProbe"]
    )
    again = WorkloadForm("PinApp", merged, PROJECTS)
    assert again.data["f~spec~replicas"] == "5"


def test_a_yaml_edit_renders_in_the_form():
    edited = example("PinterestJobSet")
    edited["spec"]["shards"] = 12
    edited["spec"]["containers"][0]["args"] = ["--a", "--b"]

    form = WorkloadForm("PinterestJobSet", edited, PROJECTS)

    assert form.data["f~spec~shards"] == "12"
    assert form.data["f~spec~containers~0~args"] == "--a\n--b"


def test_a_yaml_edit_the_form_has_not_seen_survives_a_form_change():
    base = example("PinApp")
    shown = WorkloadForm("PinApp", base, PROJECTS)
    typed = copy.deepcopy(base)
    typed["spec"]["replicas"] = 9  # typed in the YAML; the form still shows 2

    merged = WorkloadForm("PinApp", base, PROJECTS, data={**shown.data, "f~spec~tier": "Reserved"}).apply(typed)

    assert merged["spec"]["replicas"] == 9 and merged["spec"]["tier"] == "Reserved"


def test_emptied_fields_are_removed_and_typed_values_kept_for_validation_to_name():
    base = example("PinApp")
    shown = WorkloadForm("PinApp", base, PROJECTS)
    data = {**shown.data, "f~spec~replicas": "", "f~spec~template~containers~0~ports~0~containerPort": "http"}

    merged = WorkloadForm("PinApp", base, PROJECTS, data=data).apply(base)

    assert "replicas" not in merged["spec"]
    errors = {e.path for e in validate(merged)}
    assert "spec.template.containers[0].ports[0].containerPort" in errors


def test_list_items_are_added_blank_and_removed():
    base = example("PinApp")
    form = WorkloadForm("PinApp", base, PROJECTS)

    added = add_item(form, copy.deepcopy(base), "f~spec~template~containers")
    assert added["spec"]["template"]["containers"][1] == {"name": "", "image": ""}
    grown = WorkloadForm("PinApp", added, PROJECTS)
    assert "f~spec~template~containers~1~image" in grown.fields

    removed = remove_item(grown, copy.deepcopy(added), "f~spec~template~containers~0")
    assert removed["spec"]["template"]["containers"] == [{"name": "", "image": ""}]
    assert remove_item(grown, copy.deepcopy(added), "f~spec~nothing~0") == added


def test_core_error_paths_map_to_the_fields():
    form = WorkloadForm("PinApp", example("PinApp"), PROJECTS)

    assert form.aliases["spec.template.containers[0].image"] == "f~spec~template~containers~0~image"
    assert form.aliases["spec.project"] == "project"
    assert form.aliases["spec.template.containers[0].resources.requests.nvidia.com/gpu"].endswith("nvidia.com/gpu")
