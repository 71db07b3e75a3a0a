"""URLs of the feed pages."""

from django.urls import path

from djangofeeds import views

app_name = "djangofeeds"
urlpatterns = [
    path("", views.post_list, name="post_list"),
    path("<int:pk>/", views.feed_detail, name="feed_detail"),
    path("posts/<int:pk>/", views.post_detail, name="post_detail"),
    # WebSub hubs verify and push here (push.subscriber); the token is the subscription's.
    path("websub/<str:token>/", views.callback, name="websub_callback"),
]
