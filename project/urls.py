"""The project's URLs: the apps, the admin and the health check."""

from django.contrib import admin
from django.urls import include, path

from project.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("feeds/", include("djangofeeds.urls")),
    path("", include("blog.urls")),
]
