"""The solver's analysis of finished deals on the server (issue 21 §2): when it may be shown
(`analysis_allowed`, the one policy of RULES §12 for it, which tournament code extends through
`register_round_gate`), where it is computed (`AnalysisPool`: worker processes, node budgets, a bounded
backlog) and kept (`stored_analysis`: computed once per deal, in the database)."""

from app.server.analysis.policy import RoundGate, analysis_allowed, register_round_gate
from app.server.analysis.pool import OVER_BUDGET, AnalysisOverBudget, AnalysisPool
from app.server.analysis.store import stored_analysis

__all__ = [
    "OVER_BUDGET",
    "AnalysisOverBudget",
    "AnalysisPool",
    "RoundGate",
    "analysis_allowed",
    "register_round_gate",
    "stored_analysis",
]
