"""The suite's feeds worker: a ``localservers.workers.WorkerProcess`` on a real memcached."""


def feeds_worker(worker_factory, memcached, *, queues=("feeds",), **env):
    """A worker (2 processes) on the feeds queue, its locks on the given real memcached."""
    return worker_factory(
        queues=list(queues), concurrency=2, env={"MEMCACHED_LOCATION": memcached.location, **env}
    )
