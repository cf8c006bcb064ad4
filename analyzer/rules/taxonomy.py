"""The contract of docs/taxonomy.md (the project's copy of shared/spec/taxonomy.md) as
data: categories, recovery ids, defaults.

Ids are stable strings: extend, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..types import CategoryId, RecoveryId


@dataclass(frozen=True)
class Category:
    id: CategoryId
    recovery: RecoveryId
    retryable: bool | None
    en: str
    zh: str


CATEGORIES: dict[str, Category] = {
    c.id: c
    for c in (
        Category(
            CategoryId.DEVICE_OOM,
            RecoveryId.FIX_AND_RESUBMIT,
            False,
            "device memory exhausted",
            "设备内存不足",
        ),
        Category(
            CategoryId.HOST_OOM,
            RecoveryId.FIX_AND_RESUBMIT,
            False,
            "host memory exhausted",
            "主机内存不足",
        ),
        Category(
            CategoryId.COLLECTIVE_TIMEOUT,
            RecoveryId.AUTO_RESTART,
            True,
            "collective operation timed out",
            "集合通信超时",
        ),
        Category(
            CategoryId.NETWORK_FAULT,
            RecoveryId.AUTO_RESTART,
            True,
            "network or transport fault",
            "网络故障",
        ),
        Category(
            CategoryId.DEVICE_FAULT,
            RecoveryId.ISOLATE_AND_RESCHEDULE,
            True,
            "accelerator hardware fault",
            "加速卡硬件故障",
        ),
        Category(CategoryId.HANG, RecoveryId.HANG_RESTART, True, "job hung", "作业卡死"),
        Category(
            CategoryId.STORAGE_FAULT,
            RecoveryId.CHECKPOINT_RESUME,
            None,
            "storage failure",
            "存储故障",
        ),
        Category(
            CategoryId.CHECKPOINT_CORRUPT,
            RecoveryId.CHECKPOINT_RESUME,
            True,
            "checkpoint cannot be loaded",
            "检查点损坏",
        ),
        Category(
            CategoryId.NUMERICAL_ERROR,
            RecoveryId.CHECKPOINT_RESUME,
            None,
            "NaN/Inf or loss-scale collapse",
            "数值异常",
        ),
        Category(
            CategoryId.USER_CODE_ERROR,
            RecoveryId.FIX_AND_RESUBMIT,
            False,
            "bug in the training code or data",
            "用户代码错误",
        ),
        Category(
            CategoryId.ENVIRONMENT_ERROR,
            RecoveryId.FIX_AND_RESUBMIT,
            False,
            "software environment or config",
            "环境配置错误",
        ),
        Category(
            CategoryId.PREEMPTED,
            RecoveryId.UNCONDITIONAL_RESTART,
            True,
            "stopped from outside",
            "作业被外部终止",
        ),
        Category(
            CategoryId.UNKNOWN,
            RecoveryId.UNCONDITIONAL_RESTART,
            None,
            "unrecognised failure",
            "未知故障",
        ),
    )
}

NONE = "none"

RECOVERIES: dict[str, tuple[str, str]] = {
    "checkpoint_resume": ("resume from checkpoint", "断点续训练"),
    "auto_restart": ("automatic restart", "自动重启"),
    "unconditional_restart": ("unconditional restart", "无条件自动重启"),
    "hang_detection": ("hang detection", "作业卡死检测"),
    "hang_restart": ("hang restart", "作业卡死重启"),
    "operator_retry": ("operator re-execution", "算子重执行"),
    "pod_reschedule": ("pod rescheduling", "Pod重调度"),
    "isolate_and_reschedule": ("isolate node and reschedule job", "隔离式Job重调度"),
    # The taxonomy gives no Chinese name for this one; ours, not the platform's.
    "fix_and_resubmit": ("fix and resubmit", "修改后重新提交"),
}


# What each recovery does, as docs/taxonomy.md says it (the text report's advice).
_MEANINGS: dict[str, tuple[str, str]] = {
    "checkpoint_resume": (
        "restart the job from the newest complete checkpoint",
        "从最新的完整检查点重启作业",
    ),
    "auto_restart": (
        "restart the job automatically; the failure is one that a restart survives",
        "自动重启作业；这类故障重启后可恢复",
    ),
    "unconditional_restart": (
        "restart after any failure, recognised or not",
        "无论是否识别出故障都重启作业",
    ),
    "hang_detection": (
        "watch for a job that makes no progress although its processes live",
        "检测进程存活但不再前进的作业",
    ),
    "hang_restart": ("kill the hung job and restart it", "终止卡死的作业并重启"),
    "operator_retry": (
        "re-execute the failed operator or collective in place",
        "原地重新执行失败的算子或集合通信",
    ),
    "pod_reschedule": (
        "move the failed pod(s) to other nodes; the rest of the job keeps its nodes",
        "将故障 Pod 迁移到其他节点，作业其余部分保留原节点",
    ),
    "isolate_and_reschedule": (
        "mark the faulty node bad, then reschedule the whole job elsewhere",
        "将故障节点标记为不可用，再将整个作业重新调度到其他节点",
    ),
    "fix_and_resubmit": (
        "restarting cannot help; a person must change code, config or data first",
        "重启无济于事；需先修改代码、配置或数据",
    ),
}


def recovery_meaning(recovery: str, lang: str) -> str:
    """What a recovery does, in a sentence."""
    en, zh = _MEANINGS.get(recovery, ("", ""))
    return zh + "。" if lang == "zh" else en + "."


def recovery_name(recovery: str, lang: str) -> str:
    if recovery == NONE:
        return "无需恢复" if lang == "zh" else "none"
    en, zh = RECOVERIES[recovery]
    return zh if lang == "zh" else en


def category_name(category: str, lang: str) -> str:
    if category == NONE:
        return "未发现故障" if lang == "zh" else "no failure found"
    c = CATEGORIES[category]
    return c.zh if lang == "zh" else c.en
