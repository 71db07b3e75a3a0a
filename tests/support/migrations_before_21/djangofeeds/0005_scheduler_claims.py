"""0005 before issue 21: today's operations (the tick to 5 s), with beat as a dependency."""

from django.db import migrations

from tests.support.migrations_before_21 import BEAT, todays

TODAY = todays("djangofeeds", "0005_scheduler_claims")


class Migration(migrations.Migration):
    dependencies = [*TODAY.dependencies, BEAT]
    operations = TODAY.operations
