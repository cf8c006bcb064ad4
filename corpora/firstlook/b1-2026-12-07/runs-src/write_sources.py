import json
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "pytorch torchrun gloo"
MN = ("Two torchrun agents (--nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:{port} --rdzv_id {jid}), "
      "each in its own UTS+mount namespace with hostname node-a / node-b (both resolvable via a private /etc/hosts), 4 ranks in all; "
      "small DDP MLP on synthetic data, init_process_group('gloo', timeout={to}s), python logging with asctime.ms in the script's own format. ")
cases = {
 "01": (True, MN.format(port=29701, jid="ddp-7f3a21", to=30) +
        "Layout: per-node console files, each agent's stdout+stderr (workers inherit it, no --tee) -> logs/node-a.log and logs/node-b.log. "
        "Every rank runs a heartbeat thread that logs every 5 s.",
        "Rank 3 (node-b, local rank 1) at step 7 enters a CPU-busy Python polling loop waiting for a file (/tmp/fl/01/shards/epoch1.idx) "
        "that never appears, so it never reaches the step-7 DDP all-reduce; ranks 0-2 block in loss.backward() until the 30 s gloo timeout "
        "('Timed out waiting 30000ms for recv/send'); torchelastic on node-b then SIGTERMs the stuck rank 3."),
 "02": (True, MN.format(port=29712, jid="pretrain-0412", to=60) +
        "Layout: one merged console: both agents' stdout+stderr appended to the same logs/console.log (interleaved, no prefixes).",
        "About 0.7 s after rank 3 logged step 20, node-b's whole process tree (the unshare wrapper, the torchrun agent and both worker "
        "processes, ranks 2 and 3) was killed with SIGKILL from outside (lost node). Node-b therefore wrote nothing more; node-a's ranks "
        "fail in the all-reduce with gloo 'Connection closed by peer'."),
 "03": (True, MN.format(port=29703, jid="ft-run-88", to=30) +
        "Layout: torchrun --log_dir per node with --redirects 3: logs/node-a/<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log,error.json and same for node-b; "
        "each agent's own console captured as logs/node-a/launcher.log and logs/node-b/launcher.log. Rank 0 saves a checkpoint every 10 steps, then all ranks barrier.",
        "Checkpoint directory was a 5 MB tmpfs (mount -t tmpfs -o size=5m tmpfs /mnt/fl03-ckpt). The step-10 checkpoint (3.5 MB) fit; "
        "the step-20 torch.save by rank 0 ran out of space (filesystem 100% full). torch reports it as 'RuntimeError: basic_ios::clear: iostream error' "
        "followed by 'RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos ...' - no 'No space left on device' text anywhere. "
        "Ranks 1-3 waiting in dist.barrier() then fail with gloo 'Connection closed by peer'."),
 "04": (True, "Single node: torchrun --standalone --nproc_per_node 2 (2 ranks, host 'vm'), small DDP MLP, gloo, python logging to stderr. "
        "Layout: torchrun's stdout+stderr (workers inherit it, no --tee) -> logs/console.log.",
        "Before this run, a separate 20-step run of the same script saved /tmp/fl/04/ckpt/step_000020.pt (307,411 bytes); that file was then "
        "truncated to 60% (184,446 bytes) with `truncate`. This logged run resumes with --resume on that file; torch.load on both ranks fails with "
        "'PytorchStreamReader failed reading zip archive: failed finding central directory'. The earlier run's log is not included."),
 "05": (True, MN.format(port=29705, jid="sft-resume-3", to=30) +
        "Layout: per-node console files logs/node-a.log and logs/node-b.log, agents run with --tee 3 so worker lines carry torchrun's [defaultN]: prefix.",
        "All ranks were started with --resume /tmp/fl/05/checkpoints/sft/step_000150.pt, a path that does not exist (the directory exists and is empty); "
        "torch.load raises FileNotFoundError on every rank before the first training step."),
 "06": (True, "Single node: torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint localhost:29706 --rdzv_id img-aug-22 (2 ranks, host 'vm'), "
        "DDP MLP with DataLoader num_workers=2 (persistent workers). Layout: --log_dir logs --redirects 3 -> logs/img-aug-22_<suffix>/attempt_0/<rank>/{stdout,stderr}.log,error.json; "
        "torchrun's own console -> logs/launcher.log.",
        "After rank 1 logged step 15, the second DataLoader worker process of rank 1 (pid 18690) was killed from outside with SIGKILL. "
        "Rank 1 fails with 'RuntimeError: DataLoader worker (pid 18690) is killed by signal: Killed.' (raised from the SIGCHLD handler during time.sleep); "
        "rank 0 then fails in the all-reduce with gloo 'Connection closed by peer'."),
 "07": (True, MN.format(port=29707, jid="eval-sweep-5", to=30) +
        "Layout: per-node console files logs/node-a.log and logs/node-b.log (plain, no --tee). Run took ~2 minutes wall-clock.",
        "The rendezvous port 127.0.0.1:29707 was already taken by an unrelated process (`python3 -m http.server 29707`) started before the job. "
        "Both agents could not bind it, connected as TCPStore clients to the HTTP server, and after ~2 minutes each failed with "
        "'TCP client failed to connect/validate to host 127.0.0.1:29707 - timed out' -> RendezvousConnectionError. No worker process was ever started."),
 "08": (True, MN.format(port=29708, jid="mlp-base-v3", to=30) +
        "Layout: torchrun --log_dir per node with --tee 3: per-rank files logs/node-a/<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log and the "
        "agent console (with [defaultN]: prefixes) as logs/node-a/launcher.log; same for node-b. Rank 0 also pushes metrics over HTTP every 10 steps.",
        "Nothing fatal: healthy run that completes all 45 steps with exit code 0 on both nodes. Injected noise only: deprecated "
        "torch.set_default_tensor_type() UserWarning; lr_scheduler.step() called before optimizer.step() UserWarning; DataLoader num_workers=3 on a 2-CPU box warning; "
        "rank 0 logs an old NCCL 'Watchdog caught collective operation timeout' text from a previous incident in its config line; the step-10 metrics push "
        "fails twice with a logged ConnectionRefusedError/URLError traceback (the sink was started a few seconds late), is retried and given up ('buffering locally'), later pushes succeed; "
        "every step line carries a 'nan_skipped=0' metric."),
 "09": (True, MN.format(port=29709, jid="rm-train-1207", to=30) +
        "Layout: one merged console: both agents (--tee 3 --role trainer, so worker lines are prefixed [trainer0]:/[trainer1]: - the same prefixes on both nodes) "
        "appended to logs/console.log; script logs to stderr.",
        "Script bug on every rank: the training loop calls next() on a single DataLoader iterator without re-creating it at epoch end "
        "(32 batches per rank per epoch, 50 steps requested), so all 4 ranks raise an uncaught StopIteration at step 33."),
 "10": (True, MN.format(port=29710, jid="lm-pt-0031", to=30) +
        "Layout: per-node console files logs/node-a.log and logs/node-b.log from agents run with --tee 3 --local-ranks-filter 0 (only local rank 0's output "
        "reaches the console, prefixed [default0]:), plus torchrun --log_dir per node with per-rank files under logs/ranks/node-a/... and logs/ranks/node-b/....",
        "After rank 3 (node-b, local rank 1) logged step 33, that one worker process was sent SIGTERM from outside (preemption-like); the script has no SIGTERM "
        "handler so it dies silently with exit code -15. Node-b's agent then SIGTERMs rank 2; node-a's ranks fail in the all-reduce with gloo 'Connection closed by peer'. "
        "Rank 3's own output is only in logs/ranks/node-b/.../attempt_0/1/ (filtered from node-b.log)."),
}
for nn, (multi, note, inj) in cases.items():
    with open(f"/work/firstlook/b1/run-{nn}/source.json", "w") as f:
        json.dump({"source": SRC, "framework": FW, "multi_rank": multi, "collector_note": note, "injected": inj}, f, indent=2)
        f.write("\n")
print("ok")
