from django.urls import path

import base.converters  # noqa: F401 (registers the "id" path converter)
from projects.views import access, approvals, detail, network, ownership, pages, policy, wizard

app_name = "projects"
urlpatterns = [
    path("", pages.project_list, name="list"),
    path("tutorial/", pages.tutorial, name="tutorial"),
    path("new/", wizard.wizard_start, name="wizard"),
    path("new/lookup/", wizard.subject_lookup, name="lookup"),
    path("new/name-check/", wizard.name_check, name="name-check"),
    path("new/<slug:wizard>/create/", wizard.wizard_create, name="wizard-create"),
    path("new/<slug:wizard>/<slug:step>/", wizard.wizard_step, name="wizard-step"),
    path("requests/", approvals.request_queue, name="requests"),
    path("requests/<id:pk>/<slug:decision>/", approvals.request_decide, name="request-decide"),
    path("policy-defaults/", policy.policy_defaults, name="policy-defaults"),
    path("<slug:name>/", detail.project_detail, name="detail"),
    path("<slug:name>/basics/", detail.project_basics, name="basics"),
    path("<slug:name>/pod-security/", detail.project_pod_security, name="pod-security"),
    path("<slug:name>/shell-recording/", detail.project_shell_recording, name="shell-recording"),
    path("<slug:name>/members/", detail.project_members, name="members"),
    path("<slug:name>/access/", access.project_access, name="access"),
    path("<slug:name>/quota/", detail.project_quota, name="quota"),
    path("<slug:name>/quota/force/", approvals.force_decrease_page, name="force-decrease"),
    path("<slug:name>/network/", network.project_network, name="network"),
    path("<slug:name>/ownership/", ownership.project_ownership, name="ownership"),
    path("<slug:name>/policy/", policy.project_policy, name="policy"),
    path("<slug:name>/provisioning/", detail.project_provisioning, name="provisioning"),
    path("<slug:name>/provisioning/<slug:cluster>/retry/", detail.project_retry, name="retry"),
    path("<slug:name>/archive/", detail.project_archive, name="archive"),
]
