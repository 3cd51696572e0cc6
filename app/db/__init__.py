"""Persistence: SQLAlchemy async models, engine/session factory and the Alembic runner."""
