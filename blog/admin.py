"""Admin for blog entries."""

from django.contrib import admin

from blog.models import Entry


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["title", "pub_date", "is_published"]
    list_filter = ["is_published", "pub_date"]
    search_fields = ["title", "body"]
    prepopulated_fields = {"slug": ["title"]}
    date_hierarchy = "pub_date"
