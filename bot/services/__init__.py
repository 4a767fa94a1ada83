"""Services: tables, lobbies, records, snapshots, server settings, cooldowns, languages, drawing.
They use the store and the pure core, never Discord."""
