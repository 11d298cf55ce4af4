"""A client nobody here wrote: openapi-python-client generates one from ``/api/schema/`` into a temporary directory
(nothing is installed), and its typed models create, read, scale and delete a PinApp against the real app served by
``live_server`` (the host apiserver is the workload API tests' fake, which mirrors writes into the host cache),
with a developer's real API token. No field is set by hand beyond what the models ask for."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from accounts.services import create_api_token

pytestmark = pytest.mark.django_db(transaction=True)
PACKAGE = "pinconsole_generated"


@pytest.fixture
def generated(client, tmp_path: Path) -> Iterator[ModuleType]:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()))
    config = tmp_path / "config.yaml"
    config.write_text(f"post_hooks: []\nproject_name_override: {PACKAGE}\npackage_name_override: {PACKAGE}\n")
    out = tmp_path / "client"
    command = ["generate", "--path", str(schema), "--config", str(config), "--meta", "none"]
    done = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", *command, "--output-path", str(out / PACKAGE)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def module(package: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{package.__name__}.{name}")


def test_a_generated_client_creates_reads_scales_and_deletes_a_typed_pinapp(web, developer, live_server, generated):
    _, token = create_api_token(user=developer, name="generated", days=1)
    api = generated.AuthenticatedClient(base_url=live_server.url, token=token, raise_on_unexpected_status=True)
    models = module(generated, "models")
    create = module(generated, "api.workloads.project_workloads_create")
    retrieve = module(generated, "api.workloads.workloads_retrieve")
    update = module(generated, "api.workloads.workloads_update")
    scale = module(generated, "api.operations.workloads_scale")
    destroy = module(generated, "api.workloads.workloads_destroy")

    def spec(image: str) -> Any:
        return models.PinAppSpec(
            zones=["local-1a", "local-1b"],
            replicas=2,
            template=models.PinAppSpecTemplate(
                containers=[models.PinAppSpecTemplateContainersItem(name="app", image=image)]
            ),
        )

    document = models.PinAppDocument(
        api_version=models.PinAppDocumentApiVersion.PINCOMPUTE_IOV1,
        kind=models.PinAppDocumentKind.PINAPP,
        metadata=models.NewMetadataRequest(name="typed"),
        spec=spec("registry.local/app:1"),
    )
    # a replacement may leave its kind and name to the URL
    replacement = models.PinAppReplacement(
        api_version=models.PinAppReplacementApiVersion.PINCOMPUTE_IOV1, spec=spec("registry.local/app:2")
    )

    created = create.sync_detailed(client=api, project="ads", body=document)
    read = retrieve.sync_detailed(client=api, project="ads", kind="PinApp", name="typed")
    replaced = update.sync_detailed(client=api, project="ads", kind="PinApp", name="typed", body=replacement)
    scaled = scale.sync_detailed(
        client=api, project="ads", kind="PinApp", name="typed", body=models.ScaleRequest(replicas=3)
    )
    deleted = destroy.sync_detailed(client=api, project="ads", kind="PinApp", name="typed")

    assert created.status_code == 201, created.content
    assert (created.parsed.kind, created.parsed.name, created.parsed.project) == ("PinApp", "typed", "ads")
    assert created.headers["ETag"] == f'"{created.parsed.version}"'
    assert read.status_code == 200 and isinstance(read.parsed, models.PinAppWorkload)
    assert isinstance(read.parsed.spec, models.PinAppSpec) and read.parsed.spec.zones == ["local-1a", "local-1b"]
    assert read.parsed.spec.template.containers[0].image == "registry.local/app:1"
    assert replaced.status_code == 200 and replaced.parsed.spec.template.containers[0].image == "registry.local/app:2"
    assert scaled.status_code == 200 and scaled.parsed.spec.replicas == 3
    assert deleted.status_code == 204
    assert ("PinApp", "proj-ads", "typed") not in web.objects


def test_the_generated_models_type_every_kinds_spec(generated):
    models = module(generated, "models")
    create = module(generated, "api.workloads.project_workloads_create")
    update = module(generated, "api.workloads.workloads_update")

    body = str(create._get_kwargs.__annotations__["body"])

    from pincompute.kinds import KINDS

    assert all(f"{kind}Document" in body for kind in KINDS)
    replaced = str(update._get_kwargs.__annotations__["body"])
    answered = str(update.sync_detailed.__annotations__["return"])
    assert all(f"{kind}Replacement" in replaced and f"{kind}Workload" in answered for kind in KINDS)
    assert {"zones", "replicas", "template", "rollout"} <= set(models.PinAppSpec.__annotations__)
    assert {"schedule", "time_zone"} <= set(models.PinterestCronJobSpec.__annotations__)
