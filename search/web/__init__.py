"""``rulings serve`` and ``rulings mcp``: the index over HTTP (pages and a JSON API) and over MCP.

A thin layer over what the command line calls: ``service.py`` answers each question (a search, an entry,
a card, the mechanics, the figures, an export) with the CLI's own functions and messages, shared by the
web application (``app.py``, FastAPI) and the MCP server (``search/mcp_server.py``); ``pages.py`` holds
the Jinja2 templates (``templates/``), which the static HTML export (search/export.py) renders too.
Nothing here writes to the index: the server and the MCP server are read-only.
"""
