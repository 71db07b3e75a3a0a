"""A host's URLs for the apps-alone test run: the admin, and each app at a mount of its own.

The mounts are the project's (``feeds/``, ``blog/``), so the suite's paths hold
here too; other mounts are tested with tests/support/host_urls.py.
"""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("feeds/", include("djangofeeds.urls")),
    path("blog/", include("blog.urls")),
]
