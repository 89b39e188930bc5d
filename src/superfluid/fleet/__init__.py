"""The fleet: engine replicas on Ray Serve behind a prefix-aware head (`superfluid fleet`, docs/fleet.md).

Needs the ``fleet`` extra (``ray[serve]``); nothing outside this package imports it.
"""
