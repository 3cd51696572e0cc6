"""Table sockets: a `Connection` per websocket (bounded sends, rate limits, a client too slow dropped) and
`publishing`, which encodes each version's per-viewer frames once (RULES §12: a viewer gets only what
it may see)."""
