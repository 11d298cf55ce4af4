"""Project page POSTs check who may before what was sent: a viewer's bad value is a 403 like a good one, never a
400 or a 404 that tells them about the value (and never a change)."""

from __future__ import annotations

import pytest

from base.models import AuditEvent
from projects.models import Project, TierQuota

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/projects/ads/shell-recording/", {"record_shells": "yes"}),
        ("/projects/ads/shell-recording/", {}),
        ("/projects/ads/shell-recording/", {"record_shells": "1"}),
        ("/projects/ads/quota/", {"tier": "gold", "gold-cpu": "1"}),
        ("/projects/ads/quota/", {"tier": "ondemand", "ondemand-cpu": "x"}),
        ("/projects/ads/provisioning/no-such-cluster/retry/", {}),
        ("/projects/ads/basics/", {"team": "t" * 100}),
        ("/projects/ads/pod-security/", {"pod_security": "open"}),
        ("/projects/ads/network/", {"port": "x", "projects": "nope"}),
        ("/projects/ads/network/", {"op": "remove", "index": "9"}),
    ],
    ids=[
        "shell-bad",
        "shell-missing",
        "shell-good",
        "quota-tier",
        "quota-value",
        "retry-cluster",
        "basics",
        "pod",
        "network-open",
        "network-close",
    ],
)
def test_a_viewer_is_refused_for_the_role_whatever_the_value(project, viewer, client, url, data):
    client.force_login(viewer)
    audits = AuditEvent.objects.count()

    response = client.post(url, data, HTTP_HX_REQUEST="true")

    assert response.status_code == 403
    assert Project.objects.get(name="ads").record_shells is False
    assert not TierQuota.objects.filter(cpu_milli__gt=0).exists()
    assert AuditEvent.objects.count() == audits


def test_an_owner_still_gets_the_value_named(project, owner, client):
    client.force_login(owner)

    response = client.post("/projects/ads/shell-recording/", {"record_shells": "yes"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 400
