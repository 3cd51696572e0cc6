"""Accounts: argon2 password hashes, HMAC-signed expiring tokens, roles."""
