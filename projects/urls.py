from django.urls import path

from projects import views

app_name = "projects"
urlpatterns = [
    path("", views.project_list, name="list"),
    path("<slug:name>/", views.project_detail, name="detail"),
]
