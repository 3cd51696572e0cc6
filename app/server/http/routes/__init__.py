"""REST routes, one module per resource: auth, users, lobby (rooms, tables, seats), operator rooms,
invites, history (my games), archive (interrupted deals), sanctions, ops (health, metrics)."""
