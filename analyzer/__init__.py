"""ha-analyze: root-cause analysis of failed GPU/NPU training jobs from their logs.

Public API: `analyze()`, `readiness()`, `Analyzer` and `Settings`, `load_patterns()` and
the result types. Importing this package
stays cheap (no pandas, pyarrow or scikit-learn) because restart controllers import it.
"""

from .analysis import Analyzer, Settings, analyze, readiness
from .decide.readiness import Readiness
from .rules.signatures import PatternSet, load_patterns
from .types import (
    AnalyzerError,
    CategoryId,
    Finding,
    LogTime,
    PatternError,
    RecoveryId,
    RootCause,
    Stats,
    Verdict,
)

__all__ = [
    "Analyzer",
    "AnalyzerError",
    "CategoryId",
    "Finding",
    "LogTime",
    "PatternError",
    "PatternSet",
    "Readiness",
    "RecoveryId",
    "RootCause",
    "Settings",
    "Stats",
    "Verdict",
    "analyze",
    "load_patterns",
    "readiness",
]

__version__ = "0.1.0"
