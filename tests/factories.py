"""factory-boy factories for the project's models."""

import factory

from blog.models import Entry


class EntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entry

    title = factory.Sequence(lambda n: f"Entry {n}")
    slug = factory.Sequence(lambda n: f"entry-{n}")
    body = "Some text.\n\nA second paragraph."
    is_published = True
