"""gunicorn's access log without WebSub callback tokens (deploy/gunicorn.conf.py names it)."""

from gunicorn.glogging import Logger

from project.redact import hide_callback_tokens


class AccessLog(Logger):
    """gunicorn's logger; every text an access line may show has its callback tokens hidden."""

    def atoms(self, resp, req, environ, request_time):
        # The request line, the path, and the raw URI in environ: all carry the path.
        return {
            name: hide_callback_tokens(value) if isinstance(value, str) else value
            for name, value in super().atoms(resp, req, environ, request_time).items()
        }
