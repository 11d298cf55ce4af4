"""The CLI takes a kind as people type it (``get jobsets``): every name comes from the kind registry (the SDK keeps a
copy, held equal to it here), and a YAML error is one line as the README promises."""

from __future__ import annotations

import io

import httpx
import pytest
from pinconsole_sdk import Client
from pinconsole_sdk.cli import main
from pinconsole_sdk.models import KINDS, SHORT_NAMES, canonical_kind, kind_names

from pincompute.kinds import KINDS as REGISTRY


class Recorder:
    """A fake transport: every request recorded, each answered 404 with the API's error body."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.raw_path.decode())
        error = {"status": 404, "code": "not_found", "message": "no such thing", "fields": [], "request_id": "r"}
        return httpx.Response(404, json={"error": error})


def run(*argv: str, recorder: Recorder | None = None) -> tuple[int, str, str]:
    client = Client("https://portal.test", "pct_test", transport=httpx.MockTransport(recorder or Recorder()), env={})
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, client=client)
    return code, out.getvalue(), err.getvalue()


def test_the_sdk_kinds_are_the_registry_s():
    assert {kind: info.plural for kind, info in REGISTRY.items()} == KINDS
    assert {kind: info.short_names for kind, info in REGISTRY.items()} == SHORT_NAMES


@pytest.mark.parametrize("typed", ["jobsets", "jobset", "JobSets", "pjobset", "pinterestjobsets", "PinterestJobSet"])
def test_a_kind_is_taken_singular_plural_short_or_without_its_prefix(typed):
    recorder = Recorder()

    code, _, err = run("get", typed, "nightly", "-p", "ads", recorder=recorder)

    assert code == 3 and "no such thing" in err  # the portal was asked, about the right kind
    assert recorder.paths == ["/api/v1/projects/ads/workloads/PinterestJobSet/nightly/"]


def test_every_kind_has_its_plural_and_unprefixed_names_and_pods_stay_native():
    assert {canonical_kind(name) for kind in KINDS for name in kind_names(kind)} == set(KINDS)
    assert canonical_kind("apps") == "PinApp" and canonical_kind("trainingjobs") == "PinterestTrainingJob"
    assert "pods" not in kind_names("PinPod") and canonical_kind("pinpods") == "PinPod"


def test_a_yaml_error_is_one_line_with_where_and_what(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: PinApp\nmetadata:\n  name: [a\n")

    code, _, err = run("apply", "-f", str(bad), "-p", "ads")

    assert code == 2 and err.count("\n") == 1, err
    assert err == (
        f"error: {bad} is not valid YAML: line 4, column 1: expected ',' or ']', but got '<stream end>' "
        "(while parsing a flow sequence that starts at line 3, column 9)\n"
    )
