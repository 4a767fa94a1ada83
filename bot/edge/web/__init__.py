"""The table in a browser: live tables, replays and a server's tables as web pages, served by the bot
process when ``TAVERN_WEB_PORT`` is set (``server.WebServer``)."""

from bot.edge.web.server import WebServer, WebServerError

__all__ = ["WebServer", "WebServerError"]
