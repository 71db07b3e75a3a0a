"""Mail both apps send from their tasks: addresses as settings list them, and one message
rendered from three templates a host can override (subject, text, HTML)."""

from email.utils import formataddr

from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string


def addresses(listed):
    """To addresses from a setting such as ``ADMINS``: strings as they are, ``(name, address)``
    pairs formatted."""
    return [entry if isinstance(entry, str) else formataddr(tuple(entry)) for entry in listed]


def send_templated(template, context, to, headers=None):
    """Render ``<template>_subject.txt``, ``<template>.txt`` and ``<template>.html`` and send
    one message with a text and an HTML part through Django's mail backend."""
    subject = render_to_string(f"{template}_subject.txt", context)
    # One line whatever the template's (or a title's) line breaks; no-break spaces kept.
    subject = " ".join(line.strip() for line in subject.splitlines() if line.strip())
    text = render_to_string(f"{template}.txt", context)
    html = render_to_string(f"{template}.html", context)
    message = EmailMultiAlternatives(subject, text, to=to, headers=headers)
    message.attach_alternative(html, "text/html")
    message.send()
