#!/usr/bin/env bash
# The bots' own database role, made once by the postgres image as its superuser, when the tavern-postgres volume
# is first initialized (it runs what /docker-entrypoint-initdb.d holds; a volume that already holds a database
# skips it: README.md, "Running at scale", says how to change one made before this script existed).
#
# tavern logs in with the password in the file TAVERN_POSTGRES_PASSWORD_FILE names (the Docker secret
# tavern_postgres_password, which the bots read too; or TAVERN_POSTGRES_PASSWORD itself, not both) and owns
# the tavern database, where the bot creates and migrates its tables; it is no superuser, so a bot (or anyone
# with its password) cannot reach beyond that database: no other database, no roles, no files or programs on
# the server (COPY ... PROGRAM is a superuser's).
set -e
if [ -n "${TAVERN_POSTGRES_PASSWORD_FILE:-}" ]; then
    if [ -n "${TAVERN_POSTGRES_PASSWORD:-}" ]; then
        echo "TAVERN_POSTGRES_PASSWORD and TAVERN_POSTGRES_PASSWORD_FILE are both set: keep one" >&2
        exit 1
    fi
    TAVERN_POSTGRES_PASSWORD="$(< "$TAVERN_POSTGRES_PASSWORD_FILE")"
    export TAVERN_POSTGRES_PASSWORD
fi
: "${TAVERN_POSTGRES_PASSWORD:?TAVERN_POSTGRES_PASSWORD_FILE is not set: the file of the bots database password}"
# The password reaches psql through the environment (\getenv), never on a command line.
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" <<'SQL'
\getenv tavern_password TAVERN_POSTGRES_PASSWORD
CREATE ROLE tavern LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'tavern_password';
CREATE DATABASE tavern OWNER tavern;
REVOKE ALL ON DATABASE tavern FROM PUBLIC;
SQL
