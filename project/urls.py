"""The project's URLs: the apps, the admin and the health check."""

from django.contrib import admin
from django.urls import include, path

from blog.views import entry_list
from project.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # The front page is the blog's list of entries; the blog itself lives under blog/.
    path("", entry_list, name="home"),
    path("blog/", include("blog.urls")),
    path("feeds/", include("djangofeeds.urls")),
]
