"""``manage.py group_stories [--batch-size N]``: group the posts stored before stories existed
(migration 0020) into stories, oldest first, with a progress line per batch."""

from django.core.management.base import BaseCommand
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from djangofeeds.stories.grouping import group_stored


class Command(BaseCommand):
    # A property: argparse wraps the description with re, which takes no lazy string.
    @property
    def help(self):
        return gettext(
            "Give the posts stored before stories existed their story keys and group them with "
            "the posts of other feeds that carry the same article. Safe to run again."
        )

    def add_arguments(self, parser):
        parser.add_argument(
            "--batch-size", type=int, default=1000, help=_("posts read and written at a time")
        )

    def handle(self, batch_size=1000, **options):
        def progress(keyed, changed):
            if options["verbosity"] >= 1:
                line = gettext("story keys given: %(keyed)d; posts grouped: %(changed)d…")
                self.stderr.write(line % {"keyed": keyed, "changed": changed})

        keyed, changed = group_stored(batch_size=max(batch_size, 1), progress=progress)
        said = gettext("Story keys given: %(keyed)d; posts grouped: %(changed)d.")
        self.stdout.write(said % {"keyed": keyed, "changed": changed})
