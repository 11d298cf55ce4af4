from django.urls import path

from clusters import maintenance_views, views

app_name = "clusters"
urlpatterns = [
    path("", views.cluster_list, name="list"),
    path("<slug:name>/", views.cluster_detail, name="detail"),
    path("<slug:name>/attributes/", views.cluster_attributes, name="attributes"),
    path("<slug:name>/pools/<slug:kind>/", views.cluster_pool, name="pool"),
    path("<slug:name>/probe/", views.cluster_probe, name="probe"),
    path("<slug:name>/maintenance/", maintenance_views.cluster_maintenance, name="maintenance"),
    path("<slug:name>/nodes/<str:node>/<slug:verb>/", maintenance_views.node_cordon, name="node"),
]
