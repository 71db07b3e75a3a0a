"""Pages of the blog: the list of entries and one entry."""

from django.shortcuts import get_object_or_404, render

from blog.models import Entry


def entry_list(request):
    entries = Entry.objects.published()
    return render(request, "blog/entry_list.html", {"entries": entries})


def entry_detail(request, slug):
    entry = get_object_or_404(Entry.objects.published(), slug=slug)
    return render(request, "blog/entry_detail.html", {"entry": entry})
