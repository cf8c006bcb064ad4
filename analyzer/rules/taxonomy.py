"""The contract of docs/taxonomy.md (the project's copy of shared/spec/taxonomy.md) as
data: categories, recovery ids, defaults.

Ids are stable strings: extend, never rename. Their names and what each recovery does,
in English and Chinese, are in analyzer.sinks.prose.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import CategoryId, RecoveryId


@dataclass(frozen=True)
class Category:
    id: CategoryId
    recovery: RecoveryId
    retryable: bool | None


CATEGORIES: dict[str, Category] = {
    c.id: c
    for c in (
        Category(CategoryId.DEVICE_OOM, RecoveryId.FIX_AND_RESUBMIT, False),
        Category(CategoryId.HOST_OOM, RecoveryId.FIX_AND_RESUBMIT, False),
        Category(CategoryId.COLLECTIVE_TIMEOUT, RecoveryId.AUTO_RESTART, True),
        Category(CategoryId.NETWORK_FAULT, RecoveryId.AUTO_RESTART, True),
        Category(CategoryId.DEVICE_FAULT, RecoveryId.ISOLATE_AND_RESCHEDULE, True),
        Category(CategoryId.HANG, RecoveryId.HANG_RESTART, True),
        Category(CategoryId.STORAGE_FAULT, RecoveryId.CHECKPOINT_RESUME, None),
        Category(CategoryId.CHECKPOINT_CORRUPT, RecoveryId.CHECKPOINT_RESUME, True),
        Category(CategoryId.NUMERICAL_ERROR, RecoveryId.CHECKPOINT_RESUME, None),
        Category(CategoryId.USER_CODE_ERROR, RecoveryId.FIX_AND_RESUBMIT, False),
        Category(CategoryId.ENVIRONMENT_ERROR, RecoveryId.FIX_AND_RESUBMIT, False),
        Category(CategoryId.PREEMPTED, RecoveryId.UNCONDITIONAL_RESTART, True),
        Category(CategoryId.UNKNOWN, RecoveryId.UNCONDITIONAL_RESTART, None),
    )
}

NONE = "none"

# every recovery id a signature, a rule or a policy may name (not `none`)
RECOVERIES: tuple[str, ...] = tuple(r.value for r in RecoveryId if r is not RecoveryId.NONE)
