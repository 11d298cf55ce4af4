from django.urls import path

from search.api import SearchView

urlpatterns = [path("search/", SearchView.as_view(), name="search")]
