"""A host's URLs: each app mounted at a prefix of the host's choosing."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("reader/", include("djangofeeds.urls")),
    path("journal/", include("blog.urls")),
]
