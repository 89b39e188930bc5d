"""One module per API area. Handlers translate wire requests into engine types and render engine results."""
