"""``covert audit``: measure what a dataset's rows say and do against the defects a careful reader finds.

The checks (:data:`CHECKS`) are mechanical: each looks at one SFT row (its query, its assistant text,
its calls turn by turn) and says whether it applies and whether the row has the defect. The report gives
each check's rate per builder and category.
"""

from covert.audit import hand  # noqa: F401  (registers the checks of what answers and plans assert)
from covert.audit.checks import CHECKS, Check, Verdict
from covert.audit.report import ConfigAudit, audit_dataset, audit_rows, format_report
from covert.audit.rows import RowView, row_view

__all__ = ["CHECKS", "Check", "ConfigAudit", "RowView", "Verdict", "audit_dataset", "audit_rows", "format_report",
           "row_view"]
