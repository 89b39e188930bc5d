"""The browser transport (``--web``, docs/web.md): a loopback listener with the session API and the chat page.

``address`` parses and checks ``--web``; ``guard`` holds the per-launch token and refuses foreign hosts, origins
and sites; ``rpc`` is the JSON-RPC method table; ``replies`` writes each reply through the API app in process;
``listener`` is the aiohttp app that carries them; ``page/`` is the chat page, served as static files.
"""
