"""The small tasks of Celery's cheat sheet: calling, canvas and routing examples."""

from celery import shared_task


@shared_task
def add(x, y):
    """Return x + y."""
    return x + y


@shared_task
def mul(x, y):
    """Return x * y."""
    return x * y


@shared_task
def xsum(numbers):
    """Return the sum of a list of numbers (a chord's callback)."""
    return sum(numbers)
