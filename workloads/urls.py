from django.urls import path

from workloads import views

app_name = "workloads"
urlpatterns = [
    path("", views.workload_list, name="list"),
    path("catalog/", views.catalog, name="catalog"),
]
