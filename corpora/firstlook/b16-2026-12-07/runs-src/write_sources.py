import json, sys
SRC = "real torchrun run on this machine, 2026-12-07"
DJ = ("Disjointness: grep -rlF of the distinctive line {line!r} over /work/shared/eval/dev, /work/main/corpora, "
      "/work/main/patterns and /work/staging/b16: no hit outside this folder and runs-src (new trainer format written for b16; "
      "the only string shared with earlier batches is the generic script path 'runs-src/trainer.py', which occurs in earlier run-* cases' tracebacks).")
COMMONN = ("Real torch.distributed.run (torchrun, PyTorch 2.13 CPU, gloo) job on a 2-CPU machine; each 'node' is an agent started in its own "
           "UTS+mount namespace with its own hostname and an /etc/hosts mapping node names to 127.0.16.x, c10d rendezvous. "
           "torchrun entry wrapped only to shorten the exit barrier to 10 s. Output kept verbatim and complete, nothing dropped or edited. "
           "Scripts: /work/staging/b16/runs-src/{case}.sh, trainer.py, common.sh. ")
cases = {
 "run-01": (True, True, "logs/console.log: ONE merged console: both node agents (node-a, node-b; 2 ranks each, --tee 3, '[defaultN]:' prefixes) append to the same file, lines interleaved as written.", "sequence_parallel_size=4 dp=1"),
 "run-02": (True, True, "logs/node-a/console.log and logs/node-b/console.log: each agent's console (--tee 3); logs/node-*/torchelastic/<run_id>/attempt_0/<local_rank>/stdout.log|stderr.log: torchrun --log-dir per-rank files of each node (node-b's log dir copied from the node-local log path after the job).", "# node-b rank 3: "),
 "run-03": (True, True, "logs/console.log: ONE merged console: both node agents (node-a 2 ranks, node-b 1 rank) append to the same file; each rank line prefixed '<global rank>: ' by torchrun's TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE (srun --label look).", "envs_per_rank=4 unroll=16"),
 "run-04": (True, True, "logs/node-a.log and logs/node-b.log: console of each node's agent (2 ranks per node requested; node-b agent started 3 s after node-a; both stopped by themselves).", "plugin=TorchDDPPlugin precision=fp32 grad_ckpt"),
 "run-05": (True, True, "Two consecutive jobs (rdzv ids b16c05j1 then b16c05j2, second resumes from the first's checkpoint) logged into the same folder: logs/node-a.console.log and logs/node-b.console.log are appended by both jobs; logs/torchelastic/ holds torchrun --log-dir per-rank folders of both jobs and both nodes (<run_id>_<random>/attempt_0/0/). Each node reads its own local dataset copy.", "utils.DatasetConfig.batch_size = 32"),
 "run-06": (True, True, "logs/node-a.console.log (1 rank) and logs/node-b.console.log (2 ranks): agent consoles (--tee 3); logs/torchelastic/: per-rank stdout/stderr files of both nodes.", "sequence_parallel_size=3 dp=1"),
 "run-07": (True, True, "logs/node-a.console.log, logs/node-b.console.log: agent consoles (2 ranks each, --tee 3); logs/torchelastic/: per-rank stdout/stderr files of both nodes; logs/node-a.kmsg.log: the host kernel log (dmesg) lines of the same second as the job end (all 78 lines with that dmesg timestamp, verbatim; this machine's single kernel serves all namespaced nodes).", "plugin=TorchDDPPlugin precision=fp32 grad_ckpt"),
 "run-09": (True, True, "logs/node-a.console.log, logs/node-b.console.log: agent consoles (2 ranks each, --tee 3); logs/torchelastic/: per-rank stdout/stderr files of both nodes.", "utils.DatasetConfig.batch_size = 64"),
 "run-10": (True, True, "logs/console.log: ONE merged console: both node agents (node-a, node-b; 2 ranks each, --tee 3, --max-restarts=1) append to the same file, lines interleaved as written.", "wall,host,rank,step,loss,lr,samples_per_s"),
 "run-08": (True, True, "logs/console.log: ONE merged console: three node agents (node-a, node-b, node-c; 1 rank each) append to the same file.", "must be OFF, INFO, or DETAIL"),
}
for c in sys.argv[1:]:
    mr, mn, layout, line = cases[c]
    note = COMMONN.format(case="case" + c[-2:]) + layout + " " + DJ.format(line=line)
    json.dump({"source": SRC, "framework": "PyTorch (torch.distributed.run / torchrun, gloo, DDP)", "multi_rank": mr,
               "multi_node": mn, "collector_note": note}, open(f"/work/staging/b16/{c}/source.json", "w"), indent=1)
    print("wrote", c)
