"""URLs of the feed pages."""

from django.urls import path

from djangofeeds import views
from djangofeeds.republishing.views import blogroll, output_view

app_name = "djangofeeds"
urlpatterns = [
    path("", views.post_list, name="post_list"),
    path("<int:pk>/", views.feed_detail, name="feed_detail"),
    path("posts/<int:pk>/", views.post_detail, name="post_detail"),
    # WebSub hubs verify and push here (push.subscriber); the token is the subscription's.
    path("websub/<str:token>/", views.callback, name="websub_callback"),
    path("opml/", blogroll, name="blogroll"),
]
# The output feeds: every active feed's, one feed's, one category's (SPEC §4 "Republishing").
for fmt, ending in (("rss", "rss/"), ("atom", "atom/"), ("json", "feed.json")):
    urlpatterns += [
        path(ending, output_view("posts", fmt), name=f"posts_{fmt}"),
        path(f"<int:pk>/{ending}", output_view("feed", fmt), name=f"feed_{fmt}"),
        path(f"category/<int:pk>/{ending}", output_view("category", fmt), name=f"category_{fmt}"),
    ]
