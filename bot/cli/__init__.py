"""The command-line programs: ``python -m bot`` dispatches to them (play, export and replay, backup,
migrate-to and restore-drill, check), and two run on their own (``python -m bot.cli.healthcheck``, the
image's health check, and ``python -m bot.cli.i18n_check``, the catalog check). Imports nothing: the health
check must stay light."""
