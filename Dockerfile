# Decktet Tavern's image. README.md, "Deploying (Docker)" and "Operating", says how to run it; docker compose
# builds it from docker-compose.yml. Needs BuildKit (the default builder since Docker 23) for RUN --mount.

# The base image: Python 3.11, the version CI and the tests run on, on Debian 12 (bookworm), pinned by the
# digest of the tag's multi-platform index, so a rebuild starts from the same bytes until the FROM lines change.
# To take a new patch release or Debian's fixes (the tag is rebuilt for them), look up the newest tag's digest:
#   docker buildx imagetools inspect python:3.11-slim-bookworm     # "Name:" has the patch; "Digest:" the index
# (or docker-library/repo-info, repos/python/remote/3.11.N-slim-bookworm.md), write both in the two FROM lines
# below (the same image: tests/test_docker_files.py checks), rebuild, and run the tests on that Python.
# requirements.lock is compiled for 3.11 too (README, "Deploying (Docker)").

# Stage 1: the bot as a wheel. Only this stage sees the source; the image below installs the wheel from it
# through a bind mount, so the code is in the image once — compiled, in site-packages — and /app holds no
# copy of it that `python -m bot` could import instead.
FROM python:3.11.15-slim-bookworm@sha256:d29f48a31a8b408ed19272ca1e7b10ebae13b240a27e862d3d4217c528e2e0c3 AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheel .

# Stage 2: the image.
FROM python:3.11.15-slim-bookworm@sha256:d29f48a31a8b408ed19272ca1e7b10ebae13b240a27e862d3d4217c528e2e0c3
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TAVERN_DB_PATH=/app/data/tavern.sqlite3
RUN useradd --create-home --uid 10001 tavern
# Pillow's wheel shapes Arabic and Hebrew names with the libraqm it carries, which loads FriBiDi from the system:
# without it those names are written "Player N" in pictures (bot/pictures/text.py). The install below checks it.
RUN apt-get update && apt-get install -y --no-install-recommends libfribidi0 && rm -rf /var/lib/apt/lists/*
# Dependencies first, pinned with hashes (regenerate requirements.lock as the README says), so a change to the
# bot's code reuses this layer.
RUN --mount=type=bind,source=requirements.lock,target=/tmp/requirements.lock \
    pip install --no-cache-dir --require-hashes -r /tmp/requirements.lock
# The bot itself, from stage 1's wheel (pip compiles it as it installs), then a check from / that `bot` is the
# installed package.
RUN --mount=type=bind,from=wheel,source=/wheel,target=/tmp/wheel \
    pip install --no-cache-dir --no-deps /tmp/wheel/*.whl \
    && cd / && python -c "import bot, cogs, sys; assert bot.__file__.startswith(sys.prefix), bot.__file__" \
    && python -c "from PIL import features; assert features.check('raqm'), 'no text shaping'"
WORKDIR /app
# Where the bot writes: its SQLite database and heartbeat (health.json). No VOLUME here: every container would
# get an anonymous volume of its own that nothing removes. Compose mounts a named volume on it where the games
# live there (docker-compose.yml) and a small tmpfs where only the heartbeat does (docker-compose.scale.yml);
# both leave the rest of the container read-only. A new named volume takes this folder's owner, tavern.
# The database's folder and the scheduled backups' (TAVERN_BACKUP_DIR): a named volume mounted on either takes
# this owner at its first mount.
RUN mkdir -p /app/data /app/backups && chown tavern:tavern /app/data /app/backups
# The commit the image is built from (docker-compose.yml passes TAVERN_COMMIT from the shell that builds):
# `python -m bot --version`, the start-up log, tavern_build_info and /tavern help name it. Last, so a new
# commit rebuilds only this layer.
ARG TAVERN_COMMIT=""
ENV TAVERN_COMMIT=${TAVERN_COMMIT}
USER tavern
# The bot writes /app/data/health.json every 15 s; the check fails when it is stale, or says the gateway or the
# database is lost. `python -m bot.cli.healthcheck` imports only json, os, sys and time (30-50 ms, 11 MB), not
# the bot. `docker stop` sends SIGTERM: the bot finishes the moves in flight and exits within 10 s.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-m", "bot.cli.healthcheck"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
