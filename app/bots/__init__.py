"""A Python client of the table server and bot players that play random legal moves over it."""
