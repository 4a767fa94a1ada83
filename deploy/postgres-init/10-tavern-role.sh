#!/usr/bin/env bash
# The bots' own database role, made once by the postgres image as its superuser, when the tavern-postgres volume
# is first initialized (it runs what /docker-entrypoint-initdb.d holds; a volume that already holds a database
# skips it: README.md, "Running at scale", says how to change one made before this script existed).
#
# tavern logs in with TAVERN_POSTGRES_PASSWORD and owns the tavern database, where the bot creates and migrates
# its tables; it is no superuser, so a bot (or anyone with its password) cannot reach beyond that database:
# no other database, no roles, no files or programs on the server (COPY ... PROGRAM is a superuser's).
set -e
: "${TAVERN_POSTGRES_PASSWORD:?TAVERN_POSTGRES_PASSWORD is not set: the password of the bots database role}"
# The password reaches psql through the environment (\getenv), never on a command line.
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname "${POSTGRES_DB:-postgres}" <<'SQL'
\getenv tavern_password TAVERN_POSTGRES_PASSWORD
CREATE ROLE tavern LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'tavern_password';
CREATE DATABASE tavern OWNER tavern;
REVOKE ALL ON DATABASE tavern FROM PUBLIC;
SQL
