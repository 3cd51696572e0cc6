"""The timeout procedure of RULES.md §8.2–§8.5: auto-play, the robots, interrupted deals, the penalty."""

from app.autoplay.finish import PulyaClose, close_after_adjudication, close_after_timeout
from app.autoplay.procedure import (
    REASON_NO_CONTRACT,
    REASON_SOLVER,
    AutoplayError,
    Robot,
    TimeoutOutcome,
    timeout_actions,
)
from app.autoplay.record import AdjudicationError, InterruptedDeal

__all__ = [
    "REASON_NO_CONTRACT",
    "REASON_SOLVER",
    "AdjudicationError",
    "AutoplayError",
    "InterruptedDeal",
    "PulyaClose",
    "Robot",
    "TimeoutOutcome",
    "close_after_adjudication",
    "close_after_timeout",
    "timeout_actions",
]
