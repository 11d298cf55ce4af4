from django.urls import path

from workloads.history.urls import page_urlpatterns as history_pages
from workloads.views import catalog, detail, listing, revisions

app_name = "workloads"
urlpatterns = [
    path("", listing.workload_list, name="list"),
    path("catalog/", catalog.catalog, name="catalog"),
    path("catalog/<str:kind>/", catalog.kind_page, name="kind"),
    path("catalog/<str:kind>/sync/", catalog.kind_sync, name="kind-sync"),
    path("catalog/<str:kind>/preview/", catalog.kind_preview, name="kind-preview"),
    path("catalog/<str:kind>/create/", catalog.kind_create, name="kind-create"),
]

# One workload: /workloads/<project>/<kind>/<name>/... Kept after every fixed path above (a fixed path such
# as catalog/<kind>/new/ must win over a project named "catalog"). The deleted ones' pages first: a deleted
# workload's path has as many parts as a live one's panel.
urlpatterns += [
    *history_pages,
    path("<str:project>/<str:kind>/<str:name>/", detail.detail, name="detail"),
    path("<str:project>/<str:kind>/<str:name>/status/", detail.status_panel, name="detail-status"),
    path("<str:project>/<str:kind>/<str:name>/timeline/", detail.timeline_panel, name="timeline"),
    path("<str:project>/<str:kind>/<str:name>/revisions/", detail.revisions_panel, name="revisions"),
    path("<str:project>/<str:kind>/<str:name>/rollback/", revisions.rollback, name="rollback"),
    path("<str:project>/<str:kind>/<str:name>/spec/", detail.spec_panel, name="spec"),
    path("<str:project>/<str:kind>/<str:name>/spec/preview/", detail.edit_preview, name="spec-preview"),
    path("<str:project>/<str:kind>/<str:name>/operate/<str:operation>/", detail.operate, name="operate"),
    path("<str:project>/<str:kind>/<str:name>/delete/", detail.delete, name="delete"),
]
