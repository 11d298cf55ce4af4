from django.urls import path

from usage import views

app_name = "usage"
urlpatterns = [
    path("", views.report_page, name="report"),
    path("cost.csv", views.report_csv, name="report-csv"),
    path("prices/", views.prices_page, name="prices"),
    path("projects/<slug:name>/", views.project_page, name="project"),
    path("projects/<slug:name>/cost.csv", views.project_csv, name="project-csv"),
    path("clusters/<slug:name>/capacity/", views.cluster_capacity, name="cluster-capacity"),
]
