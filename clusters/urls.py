from django.urls import path

from clusters import views

app_name = "clusters"
urlpatterns = [
    path("", views.cluster_list, name="list"),
    path("<slug:name>/", views.cluster_detail, name="detail"),
    path("<slug:name>/attributes/", views.cluster_attributes, name="attributes"),
    path("<slug:name>/pools/<slug:kind>/", views.cluster_pool, name="pool"),
    path("<slug:name>/probe/", views.cluster_probe, name="probe"),
]
