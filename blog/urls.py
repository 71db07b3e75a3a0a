"""URLs of the blog."""

from django.urls import path

from blog import views

app_name = "blog"
urlpatterns = [
    path("", views.entry_list, name="entry_list"),
    path("blog/<slug:slug>/", views.entry_detail, name="entry_detail"),
]
