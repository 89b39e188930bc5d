"""``superfluid launch TOOL``: run a coding agent or the ollama command line against a superfluid server
(docs/launch.md). ``agents`` says how each program is pointed at the server; ``command`` finds the server (or
starts one), the program and the model, then runs it."""
