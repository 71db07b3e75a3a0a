"""A host's URLs for tests: the blog mounted at journal/ and the feeds at reader/.

Neither is where the project mounts them, so a URL written into an app instead
of reversed shows up as a 404 or a link outside the mount.
"""

from django.urls import include, path

urlpatterns = [
    path("journal/", include("blog.urls")),
    path("reader/", include("djangofeeds.urls")),
]
