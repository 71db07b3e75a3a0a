#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:
        # A configuration mistake (a missing secret, a bad variable) is the
        # operator's to fix: say what it is, without a traceback.
        sys.exit(f"Configuration error: {exc}")


if __name__ == "__main__":
    main()
