"""Local servers and processes that the tests and the benchmarks both start.

Real memcached and Redis (``services``), Celery workers (``workers``), and
loopback stand-ins for the outside world: feed publishers (``feed_server``,
``polite_server``), Akismet (``akismet_server``) and a WebSub hub
(``websub_hub``). Development only: never part of the wheel.
"""
