from django.urls import path

from accounts import views

app_name = "tokens"
urlpatterns = [
    path("", views.token_list, name="list"),
    path("<int:pk>/revoke/", views.token_revoke, name="revoke"),
]
