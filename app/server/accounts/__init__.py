"""Who may do what: live sessions and websocket tickets (`sessions`), room access and spectators
(`privacy`), keyed rate limits (`ratelimit`) and the administrators' audit log (`audit`)."""
