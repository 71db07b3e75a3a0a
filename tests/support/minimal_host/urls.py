"""The minimal host's URLs: the admin and both apps."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("feeds/", include("djangofeeds.urls")),
    path("", include("blog.urls")),
]
