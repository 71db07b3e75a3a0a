"""gunicorn's settings for web (Dockerfile, docker-compose.yml): sync workers behind nginx."""

bind = "0.0.0.0:8000"
workers = 3
# Sync workers: nginx (deploy/nginx/) reads each request body whole before gunicorn sees
# it and takes each response at once, so no worker waits on a slow client. Measured in
# docs/operations.md ("Slow clients"): threads alone only raise the number it takes.
worker_class = "sync"
# A request still running after this long is stuck: its worker is killed and replaced.
timeout = 30
accesslog = "-"
# The access log without WebSub callback tokens (the callback's path is its secret).
logger_class = "project.access_log.AccessLog"
