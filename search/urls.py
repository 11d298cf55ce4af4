from django.urls import path

from search import views

app_name = "search"
urlpatterns = [
    path("", views.search_page, name="page"),
    path("suggest/", views.suggestions, name="suggest"),
]
