"""What makes a table a tournament table (RULES.md §9), for every layer to ask in one way.

The tournament seats its tables with its conventions marked ``tournament`` (stored with the table like
every convention, so the pure table step, the actor and the pages all read the same value). A room cannot
set the mark (`conventions_from` refuses it).
"""

from __future__ import annotations

from collections.abc import Collection

from app.engine.conventions import Conventions


def is_tournament_table(conventions: Conventions) -> bool:
    """A table seated by a tournament's draw (§9): no proposals by players (§7.7), chat closed during its
    deals, the solver's analysis only after the round, the pools do not end the pulya (§7.1)."""
    return conventions.tournament


def tournament_conventions(conventions: Conventions, chosen: Collection[str] = ()) -> Conventions:
    """The tournament's conventions as its tables play them: the mark set, and claims off unless the
    tournament's own settings (``chosen``: the names of its overrides) turn them on (RULES.md §4.10)."""
    claims = conventions.claims if "claims" in chosen else False
    return conventions.model_copy(update={"tournament": True, "claims": claims})
