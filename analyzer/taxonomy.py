"""The contract of shared/spec/taxonomy.md as data: categories, recovery ids, defaults.

Ids are stable strings: extend, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    id: str
    recovery: str
    retryable: bool | None
    en: str
    zh: str


CATEGORIES: dict[str, Category] = {
    c.id: c
    for c in (
        Category(
            "device_oom", "fix_and_resubmit", False, "device memory exhausted", "设备内存不足"
        ),
        Category("host_oom", "fix_and_resubmit", False, "host memory exhausted", "主机内存不足"),
        Category(
            "collective_timeout",
            "auto_restart",
            True,
            "collective operation timed out",
            "集合通信超时",
        ),
        Category("network_fault", "auto_restart", True, "network or transport fault", "网络故障"),
        Category(
            "device_fault",
            "isolate_and_reschedule",
            True,
            "accelerator hardware fault",
            "加速卡硬件故障",
        ),
        Category("hang", "hang_restart", True, "job hung", "作业卡死"),
        Category("storage_fault", "checkpoint_resume", None, "storage failure", "存储故障"),
        Category(
            "checkpoint_corrupt",
            "checkpoint_resume",
            True,
            "checkpoint cannot be loaded",
            "检查点损坏",
        ),
        Category(
            "numerical_error",
            "checkpoint_resume",
            None,
            "NaN/Inf or loss-scale collapse",
            "数值异常",
        ),
        Category(
            "user_code_error",
            "fix_and_resubmit",
            False,
            "bug in the training code or data",
            "用户代码错误",
        ),
        Category(
            "environment_error",
            "fix_and_resubmit",
            False,
            "software environment or config",
            "环境配置错误",
        ),
        Category(
            "preempted", "unconditional_restart", True, "stopped from outside", "作业被外部终止"
        ),
        Category("unknown", "unconditional_restart", None, "unrecognised failure", "未知故障"),
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
