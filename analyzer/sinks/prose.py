"""Every word ha-analyze says to a person, in English and Chinese: one table, `TEXT`,
keyed by code.

A stage that explains itself names a code and fills its values: a verdict's summary is
its `reasons` (codes, also in the JSON, so a program need not parse prose), a readiness
row's detail, a restart decision's `why`, a report's labels. This module words them; no
other module holds a sentence for a person, so a new language or a reworded sentence is
one place, and a test checks that every code has both languages with the same values.
The Chinese follows the platform's own documentation where it names a feature.
"""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    # a verdict's reasons: the sentences its summary is made of (Verdict.reasons)
    "reason.found": ("{category}{where}: {message}{more}.", "{category}{where}：{message}{more}。"),
    "reason.found.where": (" on {where}", "（{where}）"),
    "reason.found.more": ("; {n} more matching lines{secondary}", "；另有 {n} 条相关日志"),
    "reason.found.secondary": (" (secondary: {kinds})", ""),
    "reason.waits-end": (
        " The ranks' waits end at rank {rank}: {chains}.",
        " 各 rank 的等待链止于 rank {rank}：{chains}。",
    ),
    "reason.unresponsive": (
        " {who} reported no timeout while the others did, and answered its launcher's "
        "SIGTERM only when killed: it was stuck, and the others waited for it.",
        " {who} 没有报告超时而其他 rank 报告了，并且对启动器的 SIGTERM 无响应，"
        "直到被强制终止：它卡住了，其他 rank 在等它。",
    ),
    "reason.lag": (
        " Rank {rank} last enqueued collective {enqueued}; ranks {ahead} enqueued "
        "{ahead_enqueued} and wait in it: rank {rank} stopped issuing collectives.",
        " rank {rank} 最后入队的集合通信是第 {enqueued} 个，而 rank {ahead} "
        "已入队第 {ahead_enqueued} 个并在其中等待：rank {rank} 停止了发起集合通信。",
    ),
    "reason.mismatch": (
        " The ranks waited in different collectives at sequence number {seq} ({ops}): the "
        "program issued different collectives on different ranks, and a restart meets the "
        "same mismatch; find the branch or size that differs between ranks.",
        "各 rank 在同一序号 {seq} 上等待的是不同的集合通信（{ops}）：程序在不同 rank 上发起了不同的"
        "集合通信，重启后会在同一处再次失配；请找出各 rank 之间不同的分支或数据量。",
    ),
    "reason.idle-wait": (
        " The rank was waiting in {where} for the driver's next request: the server sat idle "
        "longer than the collective timeout, and a restart times out the same way after as "
        "long idle; raise the timeout (HCCL_EXEC_TIMEOUT above 0, the process group's "
        "timeout) or have the driver send a heartbeat.",
        " 该 rank 在 {where} 中等待下一个请求：服务空闲时间超过了集合通信超时，"
        "重启后空闲同样会超时；请调大超时（HCCL_EXEC_TIMEOUT 设为大于 0 的值、"
        "进程组的 timeout），或让驱动进程定期发送心跳。",
    ),
    "reason.idle-wait.loop": ("its input loop", "其输入循环"),
    "reason.weak-evidence": (
        " The evidence is weak (confidence {confidence:.2f}): this is a guess; "
        "check it as the advice below says.",
        " 证据薄弱（置信度 {confidence:.2f}）：这是推测，请按下文的建议核实。",
    ),
    "reason.hang.silent": (
        "Job hung: the other ranks report a collective timeout and {who} does not; "
        "its last progress was step {step} ({when}): the others waited for it.",
        "作业卡死：其他 rank 报告集合通信超时，{who} 没有；它最后的进度是第 {step} 步"
        "（{when}），其他 rank 在等它。",
    ),
    "reason.hang.together": (
        "Job hung: all {ranks} ranks stopped progressing together after step {step} "
        "({when}); the logs go on for {minutes:.0f} more minutes without progress "
        "(median step {step_time:.3g} s). They all block in one collective, and "
        "the logs do not show which rank the others wait for: take a stack dump of every "
        "rank before killing the job (py-spy dump, or ha-run, which takes one).",
        "作业卡死：全部 {ranks} 个 rank 都在第 {step} 步（{when}）之后同时停止前进，"
        "其后 {minutes:.0f} 分钟日志仍在继续；日志无法说明其他 rank 在等哪一个："
        "请在终止前抓取各 rank 的调用栈（py-spy dump，或由 ha-run 自动抓取）。",
    ),
    "reason.hang.stalled": (
        "Job hung: {who} stopped progressing after step {step} ({when}); the logs go on "
        "for {minutes:.0f} more minutes without progress (median step {step_time:.3g} s).",
        "作业卡死：{who} 在第 {step} 步（{when}）之后停止前进，其后 {minutes:.0f} 分钟日志"
        "仍在继续（中位步长 {step_time:.3g} 秒）。",
    ),
    "reason.node-lost": (
        "Node lost: the logs of {node} stop at {when} with no error and no teardown, while "
        "{reporters} rank(s) elsewhere ({others} first) lost their peers. The cause "
        "is on {node} (power, a kernel panic, its pod killed); the others are symptoms.",
        "节点丢失：{node} 的日志在 {when} 之后中断，没有任何错误，也没有退出过程；"
        "同时 {others} 等 {reporters} 个 rank 报告与对端失去连接。"
        "根因在 {node}（掉电、内核崩溃或其 Pod 被杀），其他节点只是受害者。",
    ),
    "reason.node-empty": (
        "Node lost before its first line: every log file of {node} is empty, while "
        "{reporters} rank(s) elsewhere ({others} first, {when}) waited for their peers. "
        "The cause is on {node} (it never started, or its agent or pod died at once); "
        "the others are symptoms.",
        "节点在写下第一行日志之前就已丢失：{node} 的所有日志文件都是空的，而其他节点上 "
        "{reporters} 个 rank（最先是 {others}，{when}）在等待对端。根因在 {node}"
        "（未能启动，或其 agent/Pod 立即退出），其他节点只是受害者。",
    ),
    "reason.busy": (
        "Collective timeout: {who} was busy with work of its own ({work}, {ran:.0f} min), "
        "as long as the collective timeout ({limit:.0f} min), while "
        "the other ranks waited for it in a collective; a restart times out the same way: "
        "raise the timeout, or do that work before the process group is created or on "
        "every rank.",
        "集合通信超时：{who} 在忙自己的工作（{work}，{ran:.0f} 分钟），"
        "达到集合通信超时（{limit:.0f} 分钟），其他 rank 在集合通信中等它直至超时；"
        "重启会同样超时：延长超时，或在建立进程组之前（或在每个 rank 上）完成这项工作。",
    ),
    "reason.classifier": (
        "{category} (classifier, p={p:.2f}; no signature matched): {text}",
        "{category}（分类模型判断，概率 {p:.2f}；没有特征规则匹配）：{text}",
    ),
    "reason.cut-short": (
        "No cause in the part of the logs read before the deadline ({files:,} "
        "files, {lines:,} lines); the rest was not read and may hold it.",
        "在截止时间内只读取了部分日志（{files:,} 个文件，{lines:,} 行），"
        "其中没有发现故障原因；未读取的部分可能含有原因。",
    ),
    "reason.failed-silent": (
        "The job failed, but no line in the logs says why.",
        "作业已失败，但日志未说明原因。",
    ),
    "reason.shm-space": (
        " The device that is full is /dev/shm: the error came while the process created a "
        "lock, a queue or shared memory there; give the container a larger /dev/shm "
        "(--shm-size) or use fewer DataLoader workers.",
        "写满的是 /dev/shm：错误发生在进程于其中创建锁、队列或共享内存时；"
        "请增大容器的 /dev/shm（--shm-size）或减少 DataLoader worker 数量。",
    ),
    "reason.terminated": (
        " Every worker the launchers report died of a SIGTERM that no launcher sent: the job "
        "was stopped from outside (a scheduler's cancel or preemption, a node agent).",
        "启动器报告的每个 worker 都死于并非启动器发出的 SIGTERM："
        "作业是被外部停止的（调度器取消或抢占、节点代理）。",
    ),
    "reason.teardown": (
        " The launcher closed its workers and nothing says it was itself signalled: one of "
        "them had failed first (the pid missing from its list), and that worker's own lines "
        "are not in the logs; not a preemption.",
        "启动器关闭了它的 worker，而没有任何一行说明启动器自己收到了信号：有一个 worker 先失败了"
        "（其 pid 不在列表中），但该 worker 自己的日志不在其中；这不是抢占。",
    ),
    "reason.unreachable-store": (
        " No rank ever trained, and the rendezvous store never answered: the address or port "
        "this process was given is wrong or unreachable from its node (compare it with the "
        "other nodes' and with where the master runs); a restart meets the same.",
        "没有任何 rank 开始训练，rendezvous store 始终没有应答：该进程得到的地址或端口错误，"
        "或从其节点无法访问（请与其他节点使用的地址以及 master 所在位置比对）；重启会同样失败。",
    ),
    "reason.one-node-path": (
        " Only {host}'s ranks cannot find or may not use the path, and the job's other "
        "nodes did not fail on it: the shared mount is missing, read-only or different on "
        "{host}, not a wrong path.",
        "只有 {host} 上的 rank 找不到或无权使用该路径，作业的其他节点没有因此失败："
        "是 {host} 上的共享存储挂载缺失、只读或不同，而不是路径写错。",
    ),
    "reason.failed-unrecognised": (
        "The job failed with an error no signature knows and the classifier cannot place: {text}",
        "作业已失败，错误不为任何特征规则所知，分类模型也无法判断：{text}",
    ),
    "reason.failed-unread": (
        "The job failed, but no line in the logs says why; no log lines could be read.",
        "作业已失败，但日志未说明原因；没有可读取的日志。",
    ),
    "reason.failed-saving": (
        "The job failed, but no line in the logs says why: {who} began saving a "
        "checkpoint{at} and never finished.",
        "作业已失败，但日志未说明原因：{who} {at}开始保存检查点，未完成。",
    ),
    "reason.failed-saving.at": (" after step {step}", "在第 {step} 步后"),
    "reason.failed-steps": (
        "The job failed, but no line in the logs says why: the last progress is {who} at "
        "step {step}, then the logs end.",
        "作业已失败，但日志未说明原因：最后的进度是 {who} 的第 {step} 步，之后日志结束。",
    ),
    "reason.healthy": ("No failure found in the logs.", "未发现故障迹象。"),
    "reason.no-lines": ("No log lines could be read.", "没有可读取的日志。"),
    "reason.set-aside": (
        "Also seen: {signature}{where} ({place}{when}): outside this job's run, context "
        "only, not its cause.",
        "另见 {place}{where} 的 {signature}：它在作业运行时段之外（或在作业开始之前打印），"
        "只作背景，不是本次故障的原因。",
    ),
    "reason.set-aside.where": (" on {host}", "（{host}）"),
    "reason.set-aside.when": (", {ago} {side} the job's own lines", ""),
    "ago.days": ("{n:.0f} days", "{n:.0f} 天"),
    "ago.hours": ("{n:.0f} hours", "{n:.0f} 小时"),
    "ago.minutes": ("{n:.0f} minutes", "{n:.0f} 分钟"),
    "side.before": ("before", "之前"),
    "side.after": ("after", "之后"),
    # how parts of a sentence are joined
    "sep.clause": ("; ", "；"),
    "sep.comma": (", ", "，"),
    # who a sentence is about, where no host names it
    "who.rank": ("rank {rank}", "rank {rank}"),
    "who.Rank": ("Rank {rank}", "rank {rank}"),
    "who.process": ("The process of {file}", "{file} 的进程"),
    "who.pid": ("Process {pid}", "进程 {pid}"),
    "who.node-of": ("the node of rank {rank}", "rank {rank} 所在节点"),
    # what a rank busy in a phase of that kind was doing
    "phase.checkpoint_save": ("saving a checkpoint", "保存检查点"),
    "phase.eval": ("evaluating", "评估"),
    # the line a measured verdict cites: what it stands for (RootCause.message)
    "root.silent": (
        "last progress (step {step}); no collective timeout reported, the others waited",
        "最后的进度（第 {step} 步）；未报告集合通信超时，其他 rank 在等待",
    ),
    "root.stalled": (
        "last progress (step {step}); {minutes:.0f} min without progress",
        "最后的进度（第 {step} 步）；{minutes:.0f} 分钟没有进展",
    ),
    "root.lost": (
        "last line of a node whose ranks all stopped with no error; its peers lost it",
        "某节点的最后一行：其所有 rank 都无错误地停止，对端失去了它",
    ),
    "root.empty": (
        "a rank waiting for its peers; node {node}, whose logs are empty, never arrived",
        "某 rank 在等待对端；日志为空的节点 {node} 始终没有到达",
    ),
    "root.busy": (
        "own work for {ran:.0f} min; the collective timeout is {limit:.0f} min",
        "自身工作 {ran:.0f} 分钟；集合通信超时为 {limit:.0f} 分钟",
    ),
    "root.unrecognised": ("an error no signature knows", "不为任何特征规则所知的错误"),
    "root.classifier": ("classifier: {category} (p={p:.2f})", "分类模型：{category}（p={p:.2f}）"),
    # a finding the root cause explains that is the launcher's teardown, not a preemption
    "kind.teardown": ("teardown", "拆除"),
    # a restart controller's decision (analyzer.ops.policy Decision.why)
    "policy.none": ("no failure found", "未发现故障"),
    "policy.guess": (
        "{category} is a guess (confidence {confidence:.2f}): one restart to see whether it "
        "fails the same way",
        "{category} 是推测（置信度 {confidence:.2f}）：重启一次，看是否以同样方式失败",
    ),
    "policy.cannot-help": (
        "{category}: restarting cannot help; fix and resubmit",
        "{category}：重启无济于事；请修改后重新提交",
    ),
    "policy.sticky": (
        "sticky failure: {what} again after a restart, with {steps}; fix and resubmit",
        "顽固故障：重启后再次出现 {what}，{steps}；请修改后重新提交",
    ),
    "policy.sticky.no-step": ("no training step", "没有训练步"),
    "policy.sticky.step": ("step {step} again", "又停在第 {step} 步"),
    "policy.budget": (
        "{category} failed {n} times; the retry budget is {budget}",
        "{category} 已失败 {n} 次；重试预算为 {budget}",
    ),
    "policy.disabled": (
        "none of {preferred} and its fallbacks is enabled on this platform",
        "平台未启用 {preferred} 及其后备恢复方式",
    ),
    "policy.restart": (
        "{category}: {chosen}{instead}{lemons}",
        "{category}：{chosen}{instead}{lemons}",
    ),
    "policy.restart.instead": (
        " (instead of {preferred}, not enabled)",
        "（代替未启用的 {preferred}）",
    ),
    "policy.restart.lemons": (
        "; host(s) {hosts} failed in more than one attempt",
        "；主机 {hosts} 在多次尝试中失败",
    ),
    # the taxonomy's names (docs/taxonomy.md): categories, recoveries, what each does
    "category.device_oom": ("device memory exhausted", "设备内存不足"),
    "category.host_oom": ("host memory exhausted", "主机内存不足"),
    "category.collective_timeout": ("collective operation timed out", "集合通信超时"),
    "category.network_fault": ("network or transport fault", "网络故障"),
    "category.device_fault": ("accelerator hardware fault", "加速卡硬件故障"),
    "category.hang": ("job hung", "作业卡死"),
    "category.storage_fault": ("storage failure", "存储故障"),
    "category.checkpoint_corrupt": ("checkpoint cannot be loaded", "检查点损坏"),
    "category.numerical_error": ("NaN/Inf or loss-scale collapse", "数值异常"),
    "category.user_code_error": ("bug in the training code or data", "用户代码错误"),
    "category.environment_error": ("software environment or config", "环境配置错误"),
    "category.preempted": ("stopped from outside", "作业被外部终止"),
    "category.unknown": ("unrecognised failure", "未知故障"),
    "category.none": ("no failure found", "未发现故障"),
    "recovery.checkpoint_resume": ("resume from checkpoint", "断点续训练"),
    "recovery.auto_restart": ("automatic restart", "自动重启"),
    "recovery.unconditional_restart": ("unconditional restart", "无条件自动重启"),
    "recovery.hang_detection": ("hang detection", "作业卡死检测"),
    "recovery.hang_restart": ("hang restart", "作业卡死重启"),
    "recovery.operator_retry": ("operator re-execution", "算子重执行"),
    "recovery.pod_reschedule": ("pod rescheduling", "Pod重调度"),
    "recovery.isolate_and_reschedule": ("isolate node and reschedule job", "隔离式Job重调度"),
    "recovery.fix_and_resubmit": ("fix and resubmit", "修改后重新提交"),
    "recovery.none": ("none", "无需恢复"),
    "meaning.checkpoint_resume": (
        "restart the job from the newest complete checkpoint.",
        "从最新的完整检查点重启作业。",
    ),
    "meaning.auto_restart": (
        "restart the job automatically; the failure is one that a restart survives.",
        "自动重启作业；这类故障重启后可恢复。",
    ),
    "meaning.unconditional_restart": (
        "restart after any failure, recognised or not.",
        "无论是否识别出故障都重启作业。",
    ),
    "meaning.hang_detection": (
        "watch for a job that makes no progress although its processes live.",
        "检测进程存活但不再前进的作业。",
    ),
    "meaning.hang_restart": ("kill the hung job and restart it.", "终止卡死的作业并重启。"),
    "meaning.operator_retry": (
        "re-execute the failed operator or collective in place.",
        "原地重新执行失败的算子或集合通信。",
    ),
    "meaning.pod_reschedule": (
        "move the failed pod(s) to other nodes; the rest of the job keeps its nodes.",
        "将故障 Pod 迁移到其他节点，作业其余部分保留原节点。",
    ),
    "meaning.isolate_and_reschedule": (
        "mark the faulty node bad, then reschedule the whole job elsewhere.",
        "将故障节点标记为不可用，再将整个作业重新调度到其他节点。",
    ),
    "meaning.fix_and_resubmit": (
        "restarting cannot help; a person must change code, config or data first.",
        "重启无济于事；需先修改代码、配置或数据。",
    ),
    "meaning.none": (".", "。"),
    # the readiness table: features, needs, states, scenarios, and each row's details
    "feature.checkpoint_resume": ("checkpoint resume", "断点续训练"),
    "feature.auto_restart": ("auto restart", "自动重启"),
    "feature.unconditional_restart": ("unconditional restart", "无条件自动重启"),
    "feature.hang_detection": ("hang detection / hang restart", "作业卡死检测 / 卡死重启"),
    "feature.operator_retry": ("operator re-execution", "算子重执行"),
    "feature.rescheduling": (
        "pod rescheduling / isolate and reschedule",
        "Pod重调度 / 隔离式Job重调度",
    ),
    "feature.failure_analysis": ("log failure analysis", "日志故障分析"),
    "need.required": ("required", "必选"),
    "need.recommended": ("recommended", "推荐"),
    "need.optional": ("optional", "可选"),
    "need.not_needed": ("-", "-"),
    "need.by_pool": ("by resource pool", "视资源池能力"),
    "state.in_place": ("in place", "已具备"),
    "state.missing": ("MISSING", "缺失"),
    "state.cannot_tell": ("cannot tell", "无法判断"),
    "scenario.single_node": ("single_node", "单机"),
    "scenario.multi_node": ("multi_node", "多机分布式"),
    "scenario.large_model": ("large_model", "大模型长稳训练"),
    "scenario.head": (
        "scenario: {scenario} ({how}), {ranks}, {nodes} node(s)",
        "场景：{scenario}（{how}），{ranks}，{nodes} 个节点",
    ),
    "scenario.inferred": ("inferred: {why}", "推断：{why}"),
    "scenario.ranks": ("{n} ranks", "{n} 个 rank"),
    "scenario.no-ranks": ("ranks unknown", "rank 数未知"),
    "readiness.given": ("given", "指定"),
    "readiness.params": ("{n:.1f}B parameters", "{n:.1f}B 参数"),
    "readiness.long_run": ("{nodes} nodes for {days:.1f} days", "{nodes} 个节点运行 {days:.1f} 天"),
    "readiness.nodes": ("{nodes} nodes, {ranks} ranks", "{nodes} 个节点、{ranks} 个 rank"),
    "readiness.node": ("{nodes} node, {ranks} ranks", "{nodes} 个节点、{ranks} 个 rank"),
    "readiness.one": ("1 node", "1 个节点"),
    "readiness.not_reentrant": (
        "the script fails when it starts again: {line}",
        "脚本重新启动时失败：{line}",
    ),
    "readiness.saves_off": (
        "the job is set to save no checkpoint ({setting})",
        "作业被设置为不保存检查点（{setting}）",
    ),
    "readiness.no_saves_printed": (
        "{families} steps and no checkpoint saved",
        "{families} 有训练步，但没有保存检查点",
    ),
    "readiness.no_saves": (
        "no checkpoint save in the logs (saves may be logged below the level kept)",
        "日志中没有检查点保存记录（保存日志可能低于所保留的日志级别）",
    ),
    "readiness.configured": (
        "checkpoints are configured ({setting}) but none was saved in the logs",
        "已配置检查点（{setting}），但日志中没有保存记录",
    ),
    "readiness.saves": ("{n} checkpoint save(s)", "{n} 次检查点保存"),
    "readiness.every_steps": ("every {n} steps", "每 {n} 步"),
    "readiness.every_min": ("every {m:.1f} min", "每 {m:.1f} 分钟"),
    "readiness.every_s": ("every {s:.0f} s", "每 {s:.0f} 秒"),
    "readiness.saved": ("saved: {what}", "已保存：{what}"),
    "readiness.resumed": ("resumed: {line}", "已续训：{line}"),
    "readiness.split": (
        "ranks {ranks} started at step {first} while the others resumed at step {step}: "
        "the checkpoint was not there for every rank (a node's own disk?)",
        "rank {ranks} 从第 {first} 步开始，而其他 rank 从第 {step} 步续训："
        "并非每个 rank 都能读到检查点（节点本地盘？）",
    ),
    "readiness.resumed_at": ("resumed at step {n}", "从第 {n} 步续训"),
    "readiness.reached": ("then reached step {m}", "之后训练到第 {m} 步"),
    "readiness.fresh_later": (
        "a later start loaded no checkpoint",
        "之后的一次启动未加载任何检查点",
    ),
    "readiness.weights_only": (
        "checkpoints lack the training state ({what}): a resume rebuilds it, the run does not "
        "continue as it was",
        "检查点不含训练状态（{what}）：续训时需重建该状态，训练无法原样继续",
    ),
    "readiness.local": (
        "checkpoints on a node-local path ({path}): a rescheduled job cannot see them",
        "检查点位于节点本地路径（{path}）：重调度后的作业无法访问",
    ),
    "readiness.unknown_place": (
        "saves seen, but not whether their path is on shared storage",
        "有检查点保存，但无法判断其路径是否在共享存储上",
    ),
    "readiness.attempts": (
        "the logs hold restarted attempts ({attempts})",
        "日志中有重启后的尝试（{attempts}）",
    ),
    "readiness.budget": ("the launcher allows {n} restart(s)", "启动器允许重启 {n} 次"),
    "readiness.no_budget": (
        "the launcher allows no restart (max_restarts 0)",
        "启动器不允许重启（max_restarts 为 0）",
    ),
    "readiness.no_restart_setting": (
        "no restart setting in the logs (torchrun prints its launch config at LOGLEVEL=INFO); "
        "a platform's restart is not in the job's logs",
        "日志中没有重启设置（torchrun 仅在 LOGLEVEL=INFO 时打印启动配置）；"
        "平台的重启不体现在作业日志中",
    ),
    "readiness.elastic": (
        "elastic: the job runs on {low} to {high} nodes, a lost node need not stop it",
        "弹性：作业可在 {low} 到 {high} 个节点上运行，失去一个节点不必停止作业",
    ),
    "readiness.platform": (
        "a platform setting: the job's logs do not show it",
        "平台设置：作业日志中看不到",
    ),
    "readiness.pool": (
        "a resource-pool capability: the job's logs do not show it",
        "资源池能力：作业日志中看不到",
    ),
    "readiness.read": (
        "{files} files, {lines:,} lines of the job's logs were read",
        "已读取作业日志 {files} 个文件、{lines:,} 行",
    ),
    "readiness.unread": ("no log line of the job could be read", "无法读取作业的任何日志行"),
    "readiness.no_timeout": (
        "no collective timeout or watchdog setting in the logs",
        "日志中没有集合通信超时或看门狗设置",
    ),
    "readiness.long_timeout": (
        "collective timeout {m:.0f} min: a hang costs that long before anything notices "
        "(lower the timeout, or let the platform detect hangs from the logs)",
        "集合通信超时为 {m:.0f} 分钟：卡死要这么久才会被发现"
        "（请调低超时，或由平台根据日志检测卡死）",
    ),
    "readiness.timeout": ("collective timeout {m:.1f} min", "集合通信超时为 {m:.1f} 分钟"),
    "readiness.no_async": (
        "TORCH_NCCL_ASYNC_ERROR_HANDLING 0: a timed-out collective does not end the process, so "
        "the hang goes on",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING 为 0：集合通信超时后进程不会退出，卡死将持续",
    ),
    "readiness.no_monitor": (
        "TORCH_NCCL_ENABLE_MONITORING 0: a stuck watchdog goes unnoticed",
        "TORCH_NCCL_ENABLE_MONITORING 为 0：看门狗卡住时无法被发现",
    ),
    "readiness.no_retry": (
        "no HCCL_OP_RETRY_ENABLE in the logs (CANN prints it to run/plog at INFO)",
        "日志中没有 HCCL_OP_RETRY_ENABLE（CANN 在 INFO 级别将其写入 run/plog）",
    ),
    "readiness.retry": ("HCCL_OP_RETRY_ENABLE {value}", "HCCL_OP_RETRY_ENABLE 为 {value}"),
    # the text report's labels
    "label.root": ("Root cause", "根因"),
    "label.also": ("Also found", "其他发现"),
    "label.read": ("Read", "已读取"),
    "label.files": ("files", "个文件"),
    "label.lines": ("lines", "行"),
    "label.in": ("in", "用时"),
    "label.unreadable": ("Could not read", "无法读取"),
    "label.skipped": ("Skipped", "已跳过"),
    "label.notes": ("Notes", "说明"),
    "label.retry": ("retryable", "可重试"),
    "label.conf": ("confidence", "置信度"),
    "label.none": ("no finding", "无发现"),
    "label.ranks": ("ranks", "个 rank"),
    "label.more": ("more findings not shown", "条发现未显示"),
    "label.explained": ("explained", "由根因导致"),
    "label.model": ("Classifier", "分类模型"),
    "label.unsure": ("not sure enough to decide", "把握不足，未采用"),
    "label.decided": ("decided by", "判定依据"),
    "label.todo": ("What to do", "建议操作"),
    "label.then": ("then", "其次"),
    "label.cordon": (
        "Cordon {hosts} and reschedule the job elsewhere.",
        "隔离 {hosts}，将作业重新调度到其他节点。",
    ),
    "label.move": (
        "Move the pod(s) on {hosts} to other nodes.",
        "将 {hosts} 上的 Pod 迁移到其他节点。",
    ),
    "label.resume": (
        "Resume from {path} (step {step}; {lost} steps since it are lost).",
        "从 {path} 恢复（第 {step} 步；其后 {lost} 步需重算）。",
    ),
    "label.resume_bare": ("Resume from {path}.", "从 {path} 恢复。"),
    "label.no_ckpt": (
        "The logs show no complete checkpoint: a restart begins at step 0.",
        "日志中没有完整的检查点：重启将从第 0 步开始。",
    ),
    "label.signature": ("From {sig}", "签名 {sig} 的建议（英文）"),
    "label.controller": (
        "A restart controller (`decide`, default policy) would {action}: {reason}.",
        "重启控制器（`decide`，默认策略）会 {action}：{reason}。",
    ),
    "retry.yes": ("yes", "是"),
    "retry.no": ("no", "否"),
    "retry.unknown": ("unknown", "未知"),
    # the timeline: its columns and the spread of a failure
    "column.who": ("who", "谁"),
    "column.last": ("last progress", "最后进度"),
    "column.time": ("time", "时间"),
    "column.role": ("role", "角色"),
    "column.line": ("first telling line", "最先的关键日志"),
    "column.file": ("file", "文件"),
    "column.root": ("root cause", "根因"),
    "spread.at": ("at", "于"),
    "spread.head": (
        "first to report: {first}; last: {last} ({n} ranks reported, clocks corrected)",
        "最先报告：{first}；最后：{last}（{n} 个 rank 报告，已校正时钟偏差）",
    ),
    "spread.waits": ("waited for: ", "等待链："),
    "spread.link": ("link: ", "链路："),
}


def say(code: str, lang: str = "en", /, **values: object) -> str:
    """The sentence of `code` in `lang` (`zh`, else English), filled with `values`."""
    en, zh = TEXT[code]
    return (zh if lang == "zh" else en).format(**values)


def headline(text: str, lang: str) -> str:
    """A name that begins a sentence: capitalised in English (Chinese has no case)."""
    return text if lang == "zh" else text.capitalize()


def category_name(category: str, lang: str = "en") -> str:
    """A category's name in the report's language (docs/taxonomy.md)."""
    return say(f"category.{category}", lang)


def recovery_name(recovery: str, lang: str = "en") -> str:
    return say(f"recovery.{recovery}", lang)


def recovery_meaning(recovery: str, lang: str = "en") -> str:
    """What a recovery does, in a sentence (the text report's advice)."""
    code = f"meaning.{recovery}"
    return say(code if code in TEXT else "meaning.none", lang)


def finding_kind(category: str, explained: bool, lang: str = "en") -> str:
    """What a finding is, as the reports name it: a `preempted` line that the root cause
    explains is the launcher's SIGTERM to the other workers after the failure, their
    teardown, not a preemption of the job."""
    return say("kind.teardown", lang) if explained and category == "preempted" else category
