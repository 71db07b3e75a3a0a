"""The blog-alone host's URLs: the admin and blog, no djangofeeds."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("blog/", include("blog.urls")),
]
