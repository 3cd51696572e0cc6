# The table server image: Python 3.11, the project installed in place (the Cython solver compiled).
FROM python:3.11-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/preferans
COPY pyproject.toml setup.py README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .

# Not root: the server owns only its state directory (the token secret file lives there).
RUN useradd --system --uid 10001 --home-dir /srv/preferans preferans \
    && mkdir -p /srv/preferans/var && chown preferans:preferans /srv/preferans/var
USER preferans

ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
