"""The Batches API's work: checking an input file (``input``), running its lines through the app's own routes
in process (``dispatch``), and scheduling batches, resuming them after a restart (``runner``). The batch and
file records themselves live in ``superfluid.state``."""
