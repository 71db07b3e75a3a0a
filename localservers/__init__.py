"""Test and benchmark support, not part of the product: local servers and processes.

The tests and the benchmarks both start them: real memcached and Redis
(``services``), Celery workers (``workers``), and loopback stand-ins for the
outside world: feed publishers (``feed_server``, ``polite_server``), Akismet
(``akismet_server``) and a WebSub hub (``websub_hub``). Never part of the wheel.
"""
