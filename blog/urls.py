"""URLs of the blog, with no prefix of their own: the site mounts them where it likes."""

from django.urls import path

from blog import mail_views, views
from blog.feeds import EntryCommentsFeed, LatestEntriesFeed

app_name = "blog"
urlpatterns = [
    path("", views.entry_list, name="entry_list"),
    # Before <slug>/, which would take "feed" too: an entry cannot have that slug (Entry.clean).
    path("feed/", LatestEntriesFeed(), name="feed"),
    # The links of the blog's mails (blog.mail_links); "comments" is reserved as "feed" is.
    path("comments/moderate/<str:token>/", mail_views.moderate_by_mail, name="moderate_by_mail"),
    path("comments/unsubscribe/<str:token>/", mail_views.unsubscribe, name="unsubscribe"),
    path("<slug:slug>/", views.entry_detail, name="entry_detail"),
    path("<slug:slug>/comment/", views.add_comment, name="add_comment"),
    path("<slug:slug>/comments/feed/", EntryCommentsFeed(), name="entry_comments_feed"),
]
