from django.urls import path

from usage import use_views, views

app_name = "usage"
urlpatterns = [
    path("", views.report_page, name="report"),
    path("cost.csv", views.report_csv, name="report-csv"),
    path("prices/", views.prices_page, name="prices"),
    path("use/", use_views.fleet_use_page, name="use"),
    path("projects/<slug:name>/use/", use_views.project_use_page, name="project-use"),
    path("projects/<slug:name>/", views.project_page, name="project"),
    path("projects/<slug:name>/cost.csv", views.project_csv, name="project-csv"),
    path("clusters/<slug:name>/capacity/", views.cluster_capacity, name="cluster-capacity"),
]
