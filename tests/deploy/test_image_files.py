"""The image holds every installed app: the check is derived from INSTALLED_APPS and runs inside the built image (its
files, its virtualenv), never against the checkout, so an app the Containerfile or its ignore file leaves out is
found missing here. The ASGI app, Celery and the operator import there, and collectstatic's output is in place."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from tests.harness.image import ROOT, BuiltImage
from tests.harness.podman import Podman

pytestmark = [pytest.mark.integration]

# Where each INSTALLED_APPS entry's module is found in the image (find_spec: the module is located, not run).
LOCATE = """
import importlib.util, json
from django.conf import settings
found = {}
for entry in settings.INSTALLED_APPS:
    module = entry.rsplit(".", 1)[0] if ".apps." in entry else entry
    try:
        spec = importlib.util.find_spec(module)
    except ImportError as exc:
        spec, found[entry] = None, f"error: {exc}"
    if entry not in found:
        found[entry] = spec.origin if spec else "missing"
print(json.dumps(found))
"""
ENV = {"SECRET_KEY": "image-check-" + "k" * 40, "DATABASE_URL": "sqlite:////tmp/check.sqlite3", "DEBUG": "false"}


def test_every_installed_app_is_in_the_image(podman: Podman, project_image: BuiltImage) -> None:
    done = podman.run_once(project_image.image_id, ["python", "-c", LOCATE], env=ENV)
    assert done.returncode == 0, done.stderr
    found: dict[str, str] = json.loads(done.stdout)

    assert list(found) == list(settings.INSTALLED_APPS)  # the image's settings are this checkout's
    ours = {entry for entry in found if (ROOT / entry.split(".")[0] / "__init__.py").exists()}
    apps = {"base", "accounts", "console", "projects", "clusters", "workloads", "debugging", "usage", "search"}
    apps |= {"robots", "configs", "notifications", "webhooks", "rightsizing", "tools"}
    assert ours >= apps
    misplaced = {
        entry: origin
        for entry, origin in found.items()
        if not origin.startswith("/app/" if entry in ours else "/opt/venv/lib/python3.11/site-packages/")
    }
    assert misplaced == {}


def test_the_portal_celery_and_the_operator_import_in_the_image(podman: Podman, project_image: BuiltImage) -> None:
    code = (
        "import pathlib, console.asgi, console.celery, pincompute.operator.app; "
        "print(pathlib.Path('/app/var/staticfiles/dist/app.js').exists())"
    )
    done = podman.run_once(project_image.image_id, ["python", "-c", code], env=ENV)
    assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr
