"""Routes of the chargeback API, included by ``console.api.urls`` under ``/api/v1/``."""

from django.urls import path

from usage.api import use_views, views

urlpatterns = [
    path("cost/", views.CostReportView.as_view(), name="cost-report"),
    path("projects/<str:project>/cost/", views.ProjectCostView.as_view(), name="project-cost"),
    path("clusters/<str:name>/capacity/", views.CapacityView.as_view(), name="cluster-capacity"),
    path("prices/", views.PriceListView.as_view(), name="prices"),
    path("use/", use_views.UseView.as_view(), name="use-report"),
    path("projects/<str:project>/use/", use_views.ProjectUseView.as_view(), name="project-use"),
    path("prices/<str:tier>/", views.PriceTierView.as_view(), name="prices-tier"),
]
