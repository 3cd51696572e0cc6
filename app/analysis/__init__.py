"""Analysis of a played deal by the project's double-dummy solver (issue 21 §2): for every card, the value
before it, the best cards and what it cost its side. Pure: no I/O and no clock; the budgets are solver
nodes. ``python -m app.analysis`` reads one deal on stdin and prints one JSON line.
"""

from app.analysis.deal import (
    DEFAULT_NODE_BUDGET,
    CardVerdict,
    DealAnalysis,
    PlayedDeal,
    analyse_deal,
)

__all__ = ["DEFAULT_NODE_BUDGET", "CardVerdict", "DealAnalysis", "PlayedDeal", "analyse_deal"]
