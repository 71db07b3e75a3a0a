"""URLs of the blog."""

from django.urls import path

from blog import views
from blog.feeds import LatestEntriesFeed

app_name = "blog"
urlpatterns = [
    path("", views.entry_list, name="entry_list"),
    # Before <slug>/, so "feed" is never taken for an entry's slug.
    path("blog/feed/", LatestEntriesFeed(), name="feed"),
    path("blog/<slug:slug>/", views.entry_detail, name="entry_detail"),
    path("blog/<slug:slug>/comment/", views.add_comment, name="add_comment"),
]
