FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TAVERN_DB_PATH=/app/data/tavern.sqlite3
WORKDIR /app
RUN useradd --create-home --uid 10001 tavern
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip install --no-cache-dir . && mkdir -p /app/data && chown tavern:tavern /app/data
USER tavern
VOLUME ["/app/data"]
CMD ["python", "-m", "bot"]
