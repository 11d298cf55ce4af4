from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from accounts import views as accounts_views
from base.schema_view import RenderedOnceSchemaView
from console.metrics import metrics_view
from console.views import dashboard, health
from console.views.favicon import favicon
from console.views.oidc import oidc_enabled

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("dashboard/attention/", dashboard.dashboard_attention, name="dashboard-attention"),
    path("login/", accounts_views.login_view, name="login"),
    path("logout/", accounts_views.logout_view, name="logout"),
    path("oidc/", oidc_enabled(include("mozilla_django_oidc.urls"))),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("favicon.ico", favicon, name="favicon"),
    path("audit/", include("base.audit.urls")),
    path("tokens/", include("accounts.urls")),
    path("projects/", include("robots.urls")),
    path("projects/", include("webhooks.urls")),
    path("projects/", include("configs.urls")),
    path("projects/", include("projects.urls")),
    path("clusters/", include("clusters.urls")),
    path("workloads/", include("workloads.urls")),
    path("workloads/", include("rightsizing.urls")),
    path("debug/", include("debugging.urls")),
    path("usage/", include("usage.urls")),
    path("search/", include("search.urls")),
    path("tools/", include("tools.urls")),
    path("notifications/", include("notifications.urls")),
    path("api/v1/", include("console.api.urls")),
    path("api/schema/", RenderedOnceSchemaView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="console/api_docs.html"),
        name="api-docs",
    ),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("admin/", admin.site.urls),
]

handler400 = "console.views.errors.bad_request"
handler403 = "console.views.errors.permission_denied"
handler404 = "console.views.errors.page_not_found"
handler500 = "console.views.errors.server_error"
