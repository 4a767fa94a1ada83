#!/usr/bin/env bash
# The `backup` service of docker-compose.scale.yml (profile backup): a dump of the bots' database at start and
# then every BACKUP_EVERY_SECONDS (86400: daily), in PostgreSQL's custom format (`pg_dump -Fc`: compressed,
# and pg_restore can restore all or part of it), as the role tavern, whose password it reads from the Docker
# secret TAVERN_POSTGRES_PASSWORD_FILE names (never from the environment or a command line).
#
#   /backups/daily/tavern-YYYYMMDD-HHMMSS.dump   the newest BACKUP_KEEP_DAILY (7) dumps
#   /backups/weekly/tavern-YYYY-Www.dump         the first dump of each ISO week: the newest BACKUP_KEEP_WEEKLY (4)
# (/backups: BACKUP_DIR, the tavern-backups volume; times in UTC)
#
# Files are 0600 (umask 077). A dump is written under a .partial name and renamed once pg_dump succeeded, so a
# listed .dump is always whole; a failed one is logged, removed, and tried again at the next turn. The weekly
# file is a hard link to its daily one: no second copy on disk. README.md, "Backing up", says how to copy a
# dump out and restore it.
set -uo pipefail
umask 077

dir="${BACKUP_DIR:-/backups}"
every="${BACKUP_EVERY_SECONDS:-86400}"
keep_daily="${BACKUP_KEEP_DAILY:-7}"
keep_weekly="${BACKUP_KEEP_WEEKLY:-4}"
for number in "$every" "$keep_daily" "$keep_weekly"; do
    case "$number" in
        '' | *[!0-9]*) echo "backup: BACKUP_EVERY_SECONDS and BACKUP_KEEP_* must be whole numbers" >&2; exit 2 ;;
    esac
done
: "${TAVERN_POSTGRES_PASSWORD_FILE:?the file that holds the bots database password (a Docker secret)}"
if ! PGPASSWORD="$(< "$TAVERN_POSTGRES_PASSWORD_FILE")"; then
    echo "backup: cannot read $TAVERN_POSTGRES_PASSWORD_FILE" >&2
    exit 2
fi
export PGPASSWORD

mkdir -p "$dir/daily" "$dir/weekly"
rm -f "$dir"/daily/*.partial  # left by a dump that was stopped halfway

# Keep the newest $2 files matching $1 (their names sort by date).
prune() {
    local pattern="$1" keep="$2"
    local files
    mapfile -t files < <(compgen -G "$pattern" | sort)
    local extra=$((${#files[@]} - keep))
    if [ "$extra" -gt 0 ]; then
        rm -f -- "${files[@]:0:extra}"
    fi
}

while true; do
    name="tavern-$(date -u +%Y%m%d-%H%M%S).dump"
    daily="$dir/daily/$name"
    if pg_dump --format=custom --no-password --file="$daily.partial" && mv -- "$daily.partial" "$daily"; then
        weekly="$dir/weekly/tavern-$(date -u +%G-W%V).dump"
        [ -e "$weekly" ] || ln -- "$daily" "$weekly"
        prune "$dir/daily/tavern-*.dump" "$keep_daily"
        prune "$dir/weekly/tavern-*.dump" "$keep_weekly"
        echo "backup: wrote $daily ($(stat -c %s "$daily") bytes)"
    else
        rm -f -- "$daily.partial"
        echo "backup: pg_dump failed; trying again in $every s" >&2
    fi
    sleep "$every" &
    wait $!  # in the background, so that `docker compose stop` (SIGTERM) ends the wait at once
done
