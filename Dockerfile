# Decktet Tavern's image. README.md, "Deploying (Docker)" and "Operating", says how to run it; docker compose
# builds it from docker-compose.yml. Needs BuildKit (the default builder since Docker 23) for RUN --mount.

# Stage 1: the bot as a wheel. Only this stage sees the source; the image below installs the wheel from it
# through a bind mount, so the code is in the image once — compiled, in site-packages — and /app holds no
# copy of it that `python -m bot` could import instead.
FROM python:3.12-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheel .

# Stage 2: the image.
FROM python:3.12-slim
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
RUN mkdir -p /app/data && chown tavern:tavern /app/data
USER tavern
VOLUME ["/app/data"]
# The bot writes /app/data/health.json every 15 s; the check fails when it is stale, or says the gateway or the
# database is lost. `python -m bot.healthcheck` imports only json, os, sys and time (30-50 ms, 11 MB), not
# the bot. `docker stop` sends SIGTERM: the bot finishes the moves in flight and exits within 10 s.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-m", "bot.healthcheck"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
