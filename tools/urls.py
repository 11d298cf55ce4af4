from django.urls import path

from tools import views

app_name = "tools"
urlpatterns = [path("", views.tools_page, name="page")]
