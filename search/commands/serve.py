"""The ``rulings serve`` command: web pages and a JSON API over the index (search/web/app.py)."""

from __future__ import annotations

import os

import click

from rulings.ingest.errors import RulingsError
from rulings.search.commands.options import index_option, ready_index


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on: loopback by default; 0.0.0.0 answers other machines too.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: a free port, printed at start).")
@click.option("--workers", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Worker processes; each answers one search at a time.")
@index_option
def serve(host, port, workers, index_dir):
    """Web pages and a JSON API over the index, read-only; Ctrl-C stops.

    \b
    Pages:  /  (search: ?q= and the filters mechanic, card, set, lang, since, until)
            /entries/ID   /cards/NAME   /mechanics   /mechanics/ID
    API:    /api/search   /api/entries/ID   /api/cards/NAME   /api/mechanics
            /api/mechanics/ID   /api/stats   /api/export?format=jsonl|json|csv|md|html
            described at /api/openapi.json; errors are {"error": "..."} with 400 or 404
    An ingest, remove or update running meanwhile is picked up when it
    finishes, without a restart; requests meanwhile answer from the last
    complete index, and a question asked before from it until the server
    has answered it again on the new one (seconds; at most 10 s).
    """
    import uvicorn

    from rulings.search.web.app import HOSTS_ENV, INDEX_ENV, create_app, loopback_hosts
    from rulings.search.web.workers import Workers, listening_socket

    index_dir = ready_index(index_dir).path.absolute()      # the server answers through rulings.Index too
    try:
        sockets = [listening_socket(host, port, shared=workers > 1)]
        bound = sockets[0].getsockname()[1]
        sockets += [listening_socket(host, bound, shared=True) for _ in range(workers - 1)]
    except OSError as err:
        raise RulingsError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    shown = f"[{host}]" if ":" in host else host
    hosts = loopback_hosts(host)
    click.echo(f"Serving {index_dir} at http://{shown}:{bound}/ (read-only; Ctrl-C stops)", err=True)
    settings = dict(log_level="warning", access_log=False, server_header=False, timeout_graceful_shutdown=5)
    if workers == 1:
        config = uvicorn.Config(create_app(index_dir, hosts), **settings)
        uvicorn.Server(config).run(sockets=sockets)
        return
    os.environ[INDEX_ENV] = str(index_dir)            # read by each worker's search.web.app.factory()
    os.environ[HOSTS_ENV] = ",".join(hosts or [])
    config = uvicorn.Config("rulings.search.web.app:factory", factory=True, workers=workers, **settings)
    Workers(config, sockets).run()               # each worker on a socket of its own (search/web/workers.py)
