from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from console.views import audit, auth, dashboard, health, tokens

audit_patterns = ([
    path("", audit.audit_list, name="list"),
    path("<int:pk>/", audit.audit_detail, name="detail"),
], "audit")

token_patterns = ([
    path("", tokens.token_list, name="list"),
    path("<int:pk>/revoke/", tokens.token_revoke, name="revoke"),
], "tokens")

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("login/", auth.login_view, name="login"),
    path("logout/", auth.logout_view, name="logout"),
    path("oidc/", include("mozilla_django_oidc.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("audit/", include(audit_patterns)),
    path("tokens/", include(token_patterns)),
    path("projects/", include("projects.urls")),
    path("clusters/", include("clusters.urls")),
    path("workloads/", include("workloads.urls")),
    path("debug/", include("debugging.urls")),
    path("api/v1/", include("console.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("admin/", admin.site.urls),
]

handler400 = "console.views.errors.bad_request"
handler403 = "console.views.errors.permission_denied"
handler404 = "console.views.errors.page_not_found"
handler500 = "console.views.errors.server_error"
