"""The pulya: score sheet, settlement and the judges' sanctions (RULES.md §5–§7, §11)."""

from app.engine.scoring.records import Column, ScoringError, Write
from app.engine.scoring.sheet import HistoryLine, ScoreSheet

__all__ = ["Column", "HistoryLine", "ScoreSheet", "ScoringError", "Write"]
