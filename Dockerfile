FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TAVERN_DB_PATH=/app/data/tavern.sqlite3
WORKDIR /app
RUN useradd --create-home --uid 10001 tavern
# Dependencies first, pinned with hashes (regenerate requirements.lock as the README says), so a change to the
# bot's code reuses this layer.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip install --no-cache-dir --no-deps . && mkdir -p /app/data && chown tavern:tavern /app/data
USER tavern
VOLUME ["/app/data"]
# The bot writes /app/data/health.json every 15 s; this fails when it is stale, or says the gateway or the
# database is lost. `docker stop` sends SIGTERM: the bot finishes the moves in flight and exits within 10 s.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["python", "-m", "bot", "health"]
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]
