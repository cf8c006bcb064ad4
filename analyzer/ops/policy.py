"""Verdict + attempt history + what the platform offers -> what to do now.

The taxonomy maps a category to the recovery feature that suits it; a platform may not
have that feature (operator re-execution needs super-node hardware, pod rescheduling a
pool that supports it), may want a different one for a given signature, and must stop
restarting a job that fails the same way every time. A policy file says all of that in
data; the defaults below are the taxonomy's, with every feature enabled.

```yaml
features: [checkpoint_resume, auto_restart, unconditional_restart, hang_restart]
scenario: multi_node            # single_node | multi_node | large_model
retries: 3                      # default budget per category
guess_below: 0.6                # a stop on a verdict less sure than this restarts once
rules:                          # first match wins; category and/or signature
  - {signature: hccl-link-flap, recovery: operator_retry, retries: 5}
  - {category: network_fault, repeat: 2, recovery: pod_reschedule}
ladder:                         # fallbacks when a feature is not enabled
  operator_retry: [auto_restart, checkpoint_resume, unconditional_restart]
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..decide.verdict import GUESS_BELOW
from ..rules.taxonomy import CATEGORIES, RECOVERIES
from ..rules.yamlfile import YamlError, load_file
from ..sinks.prose import say
from ..types import AnalyzerError
from .history import Attempt, lemon_hosts, sticky

STOP = "fix_and_resubmit"
SCENARIOS = ("single_node", "multi_node", "large_model")
RESTARTS = frozenset(r for r in RECOVERIES if r not in (STOP, "hang_detection"))
# Where to go when a feature is not enabled: nearest first. A job-level restart from the
# newest checkpoint is the floor every training platform has.
LADDER: dict[str, tuple[str, ...]] = {
    "operator_retry": ("auto_restart", "checkpoint_resume", "unconditional_restart"),
    "pod_reschedule": (
        "isolate_and_reschedule",
        "auto_restart",
        "checkpoint_resume",
        "unconditional_restart",
    ),
    "isolate_and_reschedule": (
        "pod_reschedule",
        "checkpoint_resume",
        "auto_restart",
        "unconditional_restart",
    ),
    "hang_restart": ("auto_restart", "checkpoint_resume", "unconditional_restart"),
    "auto_restart": ("checkpoint_resume", "unconditional_restart"),
    "checkpoint_resume": ("auto_restart", "unconditional_restart"),
    "unconditional_restart": ("checkpoint_resume", "auto_restart"),
}

# Exit codes for schedulers that decide from them. Kubeflow's ExitCode restart policy
# retries codes >= 128 and never retries 1-127, so every restart is >= 128 and "do not
# restart" is below it. 0 means nothing failed.
EXIT_NONE = 0
EXIT_PERMANENT = 10
EXIT_RESTART = 200
EXIT_POD_RESCHEDULE = 201
EXIT_ISOLATE = 202
_EXIT = {"pod_reschedule": EXIT_POD_RESCHEDULE, "isolate_and_reschedule": EXIT_ISOLATE}


@dataclass(frozen=True)
class Rule:
    recovery: str
    category: str | None = None
    signature: str | None = None
    repeat: int = 1  # applies from this many failures of its kind in the history on
    retries: int | None = None

    def applies(self, category: str, signature: str | None, seen: int) -> bool:
        return (
            (self.category is None or self.category == category)
            and (self.signature is None or self.signature == signature)
            and seen >= self.repeat
        )


@dataclass(frozen=True)
class Policy:
    features: frozenset[str] = RESTARTS
    scenario: str = "multi_node"
    retries: int = 3
    rules: tuple[Rule, ...] = ()
    ladder: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(LADDER))
    # A verdict less sure than this that says "stop" is a guess (a bare SIGKILL read as
    # host OOM): one restart shows whether the job fails the same way before a person is
    # asked to fix something that may not be broken. 0 turns it off.
    guess_below: float = GUESS_BELOW

    def available(self, recovery: str) -> str | None:
        """`recovery`, or the first enabled feature down its ladder."""
        if recovery == "pod_reschedule" and self.scenario == "single_node":
            recovery = "isolate_and_reschedule"  # a one-pod job moves as a whole
        for r in (recovery, *self.ladder.get(recovery, ())):
            if r in self.features:
                return r
        return None


@dataclass(frozen=True)
class Decision:
    """What a restart controller should do after this attempt."""

    action: str  # "none" | "restart" | "stop"
    recovery: str  # the feature to use (after fallbacks), "fix_and_resubmit" or "none"
    preferred: str  # what the verdict and rules asked for, before fallbacks
    category: str
    failures: int  # failures of this kind so far, this attempt included
    budget: int
    isolate_hosts: tuple[str, ...]
    reason: str  # in English (analyzer.sinks.prose `policy.<why>`)
    exit_code: int
    # why, as a code: none, guess, cannot-help, sticky, budget, disabled, restart
    why: str = "none"

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "recovery": self.recovery,
            "preferred": self.preferred,
            "category": self.category,
            "failures": self.failures,
            "budget": self.budget,
            "isolate_hosts": list(self.isolate_hosts),
            "reason": self.reason,
            "why": self.why,
            "exit_code": self.exit_code,
        }


def decide(
    current: Attempt, history: Sequence[Attempt] = (), policy: Policy | None = None
) -> Decision:
    """The action for `current`, given the earlier attempts of the same job, oldest first."""
    policy = policy or Policy()
    cat = current.category
    if cat == "none":
        reason = say("policy.none")
        return Decision("none", "none", "none", cat, 0, 0, (), reason, EXIT_NONE, "none")
    same = [a for a in history if a.category == cat] + [current]
    rule = next((r for r in policy.rules if r.applies(cat, current.signature, len(same))), None)
    preferred = rule.recovery if rule else current.recovery
    budget = rule.retries if rule and rule.retries is not None else policy.retries
    lemons = lemon_hosts([*history, current])

    def stop(why: str, reason: str) -> Decision:
        return Decision(
            "stop", STOP, preferred, cat, len(same), budget, lemons, reason, EXIT_PERMANENT, why
        )

    def restart(chosen: str, why: str, reason: str, allowed: int = budget) -> Decision:
        exit_code = _EXIT.get(chosen, EXIT_RESTART)
        return Decision(
            "restart", chosen, preferred, cat, len(same), allowed, lemons, reason, exit_code, why
        )

    guess = policy.available("auto_restart")
    if preferred == STOP and current.confidence < policy.guess_below and len(same) == 1 and guess:
        reason = say("policy.guess", category=cat, confidence=current.confidence)
        return restart(guess, "guess", reason, allowed=1)
    if preferred == STOP:
        return stop("cannot-help", say("policy.cannot-help", category=cat))
    why_sticky = sticky(current, history)
    if why_sticky:
        return stop("sticky", why_sticky)
    if len(same) > budget:
        return stop("budget", say("policy.budget", category=cat, n=len(same), budget=budget))
    if lemons and preferred not in ("isolate_and_reschedule", "pod_reschedule"):
        preferred = "isolate_and_reschedule"
    chosen = policy.available(preferred)
    if chosen is None:
        return stop("disabled", say("policy.disabled", preferred=preferred))
    instead = say("policy.restart.instead", preferred=preferred) if chosen != preferred else ""
    hosts = say("policy.restart.lemons", hosts=", ".join(lemons)) if lemons else ""
    reason = say("policy.restart", category=cat, chosen=chosen, instead=instead, lemons=hosts)
    return restart(chosen, "restart", reason)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _ids(
    value: Any, known: Iterable[str], field: str, fail: Callable[[str], Exception]
) -> list[str]:
    """A list of known ids (a number, a string or a mapping is refused by name)."""
    if not isinstance(value, list):
        raise fail(f"{field}: must be a list of recovery ids")
    for v in value:
        if not isinstance(v, str) or v not in known:
            raise fail(f"{field}: {v!r} is not a recovery id")
    return value


def load_policy(path: str | Path) -> Policy:
    """A policy file; errors name the field, like pattern files."""
    try:
        data = load_file(Path(path)) or {}
    except YamlError as e:
        raise AnalyzerError(f"cannot read policy: {e}") from None
    if not isinstance(data, dict):
        raise AnalyzerError(f"{path}: a policy is a mapping")

    def fail(what: str) -> AnalyzerError:
        return AnalyzerError(f"{path}: {what}")

    unknown = set(data) - {"features", "scenario", "retries", "guess_below", "rules", "ladder"}
    if unknown:
        raise fail(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}")
    features = frozenset(_ids(data.get("features", sorted(RESTARTS)), RECOVERIES, "features", fail))
    scenario = data.get("scenario", "multi_node")
    if not isinstance(scenario, str) or scenario not in SCENARIOS:
        raise fail(f"scenario: must be one of {', '.join(SCENARIOS)}")
    retries = data.get("retries", 3)
    if not _count(retries):
        raise fail("retries: must be a non-negative integer")
    guess_below = data.get("guess_below", Policy.guess_below)
    if isinstance(guess_below, bool) or not isinstance(guess_below, int | float):
        raise fail("guess_below: must be a number from 0 to 1")
    if not 0 <= guess_below <= 1:
        raise fail("guess_below: must be a number from 0 to 1")
    rules = []
    raw_rules = data.get("rules") or []
    if not isinstance(raw_rules, list):
        raise fail("rules: must be a list")
    for i, r in enumerate(raw_rules):
        if not isinstance(r, dict) or set(r) - {
            "category",
            "signature",
            "repeat",
            "recovery",
            "retries",
        }:
            raise fail(f"rules[{i}]: keys are category, signature, repeat, recovery, retries")
        if not isinstance(r.get("recovery"), str) or r["recovery"] not in RECOVERIES:
            raise fail(f"rules[{i}].recovery: {r.get('recovery')!r} is not a recovery id")
        category = r.get("category")
        if category is not None and (not isinstance(category, str) or category not in CATEGORIES):
            raise fail(f"rules[{i}].category: {category!r} is not a category id")
        if r.get("signature") is not None and not isinstance(r["signature"], str):
            raise fail(f"rules[{i}].signature: must be a signature id")
        if not _count(r.get("repeat", 1)) or r.get("repeat", 1) < 1:
            raise fail(f"rules[{i}].repeat: must be a whole number >= 1")
        if r.get("retries") is not None and not _count(r["retries"]):
            raise fail(f"rules[{i}].retries: must be a non-negative integer")
        rules.append(
            Rule(
                r["recovery"],
                category,
                r.get("signature"),
                int(r.get("repeat", 1)),
                r.get("retries"),
            )
        )
    ladder = dict(LADDER)
    raw_ladder = data.get("ladder") or {}
    if not isinstance(raw_ladder, dict):
        raise fail("ladder: must be a mapping of recovery id to fallbacks")
    for k, v in raw_ladder.items():
        if not isinstance(k, str) or k not in RECOVERIES:
            raise fail(f"ladder.{k}: recovery ids only")
        ladder[k] = tuple(_ids(v, RECOVERIES, f"ladder.{k}", fail))
    return Policy(features, scenario, retries, tuple(rules), ladder, float(guess_below))
