from django.urls import path

from base.audit import views

app_name = "audit"
urlpatterns = [
    path("", views.audit_list, name="list"),
    path("<int:pk>/", views.audit_detail, name="detail"),
]
