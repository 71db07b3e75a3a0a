# One image for web (gunicorn), worker and beat; settings come from the environment.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt requirements-common.txt ./
RUN pip install -r requirements.txt

COPY . .
# DEBUG only for this build step: the settings refuse the dev key otherwise.
RUN DJANGO_DEBUG=1 python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 app \
    && mkdir -p var && chown -R app var

USER app
EXPOSE 8000
# Meant to run behind nginx (docker-compose.yml's proxy): see deploy/gunicorn.conf.py.
CMD ["gunicorn", "project.wsgi:application", "--config", "deploy/gunicorn.conf.py"]
