"""Writes run-NN/source.json for the second first-look batch (collector notes, no labels)."""
import json
import os

B = "/work/firstlook-b2"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "pytorch DDP, torchrun (torchelastic), gloo, torch 2.13.0+cpu"
COMMON = ("Trainer: runs-src/trainer.py, a small DDP MLP regression over on-disk record shards written by "
          "runs-src/prep_data.py (16,384 records in 8 shards, validation shards val-NNN.pt assigned to ranks as "
          "files[rank::world]), AdamW + trainlib.sched.build_scheduler, python logging "
          "'%(asctime)s | LEVEL | host | rank N | logger | msg', faulthandler enabled, main() under torchelastic @record. ")
MULTI = ("Two torchrun agents (--nnodes 2 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint 127.0.0.1:PORT "
         "--rdzv_id JOBID), each started by runs-src/node.sh inside its own UTS + mount namespace (unshare --uts --mount "
         "--fork) with its own hostname and a private /etc/hosts (runs-src/hosts.b2) mapping the node names to 127.0.0.x; "
         "4 ranks in all on a 2-core VM. ")

cases = {
 "01": dict(multi=True, note=MULTI + COMMON +
   "Hosts gn-0417 / gn-0418, rdzv_id reg-mlp-0417, port 29811. Trainer args: --steps 400 --log-every 2 --val-every 100 "
   "--ckpt-every 100 --pg-timeout 1800 --stall-dump 120 (faulthandler.dump_traceback_later(120, repeat=True), re-armed "
   "at the start of every step). Validation runs on each rank over its own val shards and is summed with dist.all_reduce "
   "only when the rank has at least one record ('if vn > 0'); rank 0 then saves a checkpoint and every rank enters "
   "dist.barrier(). Injected: the dataset was written with 3 validation shards for 4 ranks (prep_data.py --val-shards 3), "
   "so rank 3 has none and skips the step-100 all_reduce. Layout: per-node folders, torchrun --log_dir logs/<host> "
   "--redirects 3 (per-rank stdout.log/stderr.log under <rdzv_id>_<suffix>/attempt_0/<local_rank>/) and the agent's "
   "console as logs/<host>/launcher.log. The logs were copied 360 s after launch while the job was still running "
   "(last step line 09:53:39, copy at 09:59:20); the whole process trees of both agents were then killed with SIGKILL "
   "(nothing further was written). Commands: bash runs-src/case01.sh."),
 "02": dict(multi=True, note=MULTI + COMMON +
   "Hosts cn-0412 / cn-0413, rdzv_id slurm-88412, port 29812. Slurm-style collection: each node's agent is one task "
   "(task 0 = cn-0412, task 1 = cn-0413); both outputs go to one file with srun --label style 'N: ' prefixes, emulated "
   "with `sed -u 's/^/N: /'` appending to logs/slurm-88412.out (there is no Slurm on this machine; no srun lines). "
   "Trainer args: --steps 300 --log-every 2 --val-every 50 --ckpt-every 50 --pg-timeout 20 --log-stream stderr. "
   "Validation errors are caught and logged with their traceback; the rank then has 0 records and skips the "
   "all_reduce ('if vn > 0'), and every rank goes on to the checkpoint dist.barrier(). Injected: validation shard "
   "val-002.pt was cut to 60% of its size (prep_data.py --val-shards 4 --cut-val 2, os.truncate); it belongs to rank 2. "
   "Both agents exited 1. Commands: bash runs-src/case02.sh."),
 "03": dict(multi=True, note=MULTI + COMMON +
   "Hosts trn-a01 / trn-a02, shared checkpoint dir, checkpoints written by rank 0 with the pre-1.6 serialization "
   "(torch.save(..., _use_new_zipfile_serialization=False), --ckpt-legacy), hidden 384. Job A (rdzv_id ft-legacy-v2, "
   "not in the logs) trained 120 of 400 steps and saved step_000040.pt, step_000080.pt, step_000120.pt (2,081,626 bytes "
   "each). Injected: step_000120.pt was then cut to 45% (936,731 bytes) with `truncate -s`, as an interrupted write "
   "leaves it. Job B (rdzv_id ft-legacy-v2-r1, port 29823, both agents with --max-restarts 1) is the logged run: "
   "--resume auto picks the newest file in the directory. Layout: torchrun --log_dir logs/<host> --redirects 3 plus each "
   "agent's console as logs/<host>/launcher.log, delivered as one archive logs/ft-legacy-v2-r1-logs.tar.gz (tar -czf of "
   "the logs folder). Agent exit codes were not captured separately (both ended with torchrun's ChildFailedError). "
   "Commands: bash runs-src/case03.sh."),
 "04": dict(multi=True, note=MULTI + COMMON +
   "Hosts pt-run7-worker-0 / pt-run7-worker-1 (pods). In each pod's mount namespace /mnt/ckpt is a bind mount of "
   "that pod's own directory (/tmp/fl2/04/disk/<pod>), i.e. node-local disk, not shared storage. Stage 1 "
   "(rdzv_id pt-run7, port 29814, 60 steps, --ckpt-dir /mnt/ckpt/run7 --ckpt-every 30): rank 0 on worker-0 saved "
   "step_000030.pt and step_000060.pt to worker-0's disk; its log is logs/pt-run7-stage1.log. Stage 2 (rdzv_id "
   "pt-run7-resume, port 29824, --steps 200 --resume /mnt/ckpt/run7/step_000060.pt on both pods) is logs/pt-run7.log. "
   "Injected: nothing beyond the per-pod checkpoint disk and the resume path. Layout: like `kubectl logs -l job=pt-run7 "
   "--prefix`: both pods' agent stdout+stderr (workers inherit it) in one stream, each line prefixed "
   "'[pod/<pod>/pytorch] ' (emulated with sed -u; no Kubernetes here). Both agents of stage 2 exited 1. "
   "Commands: bash runs-src/case04.sh."),
 "05": dict(multi=False, note=COMMON +
   "Single node (this VM, hostname vm): torchrun --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d --rdzv_endpoint "
   "localhost:29815 --rdzv_id imgrec-2207 --log_dir logs --tee 3; DataLoader num_workers=2 per rank. The dataset decodes "
   "each record by reading its int32 length field and copying that many bytes with ctypes.string_at. Injected: the "
   "record rank 1 would get at step 150 (batch position 3, epoch 0; global record 7176) had its length field set to "
   "0x7ff00000 (prep_data.py --world 2 --bad-header 1:150:3). Layout: torchrun's per-rank files "
   "logs/imgrec-2207_<suffix>/attempt_0/<rank>/{stdout,stderr}.log,error.json and its console (worker lines with "
   "[defaultN]: prefixes) in logs/console.log. torchrun exited 1. Commands: bash runs-src/case05.sh."),
 "06": dict(multi=True, note=MULTI + COMMON +
   "Hosts node-a / node-b, rdzv_id shard-ckpt-31, port 29816. --hidden 512 --ckpt-mode sharded --ckpt-every 30: every "
   "rank writes its own shard /mnt/local-ssd/ckpt/step_NNNNNN/rankRR.pt (about 3.4 MB) with trainlib.io.atomic_save "
   "(serialize to memory, write .tmp in 1 MiB chunks, fsync, rename), then all ranks barrier. Injected: /mnt/local-ssd is "
   "a tmpfs mounted inside each node's mount namespace, size=200m on node-a and size=16m on node-b. Layout: per-node "
   "folders, each agent's stdout+stderr (workers inherit it, no --tee) in logs/<host>/train.log. Agent exit codes not "
   "captured separately (both ended with torchrun's ChildFailedError). Commands: bash runs-src/case06.sh."),
 "07": dict(multi=True, note=MULTI + COMMON +
   "Hosts ip-10-0-3-17 / ip-10-0-3-42, rdzv_id replay-ft-09, port 29817. DataLoader num_workers=2 per rank with the "
   "default file_descriptor sharing strategy; --replay 96 keeps the last 96 batches for hard-example replay. Injected: "
   "the open-files limit of ip-10-0-3-42 was set to 256 (`ulimit -n 256` run inside that node's namespace before "
   "torchrun); ip-10-0-3-17 kept this VM's 20000. Layout: one merged console: both agents' stdout+stderr appended to "
   "logs/console.log, no prefixes. Agent exit codes not captured separately (both ended with torchrun's "
   "ChildFailedError). Commands: bash runs-src/case07.sh."),
 "08": dict(multi=True, note=MULTI + COMMON +
   "Hosts dgx-07 / dgx-11, rdzv_id lm-probe-57, port 29818. The trainer logs a WARNING for every step whose loss is "
   "not finite and raises after 20 consecutive ones (--max-nonfinite 20); rank 0 keeps 2 checkpoints (--keep 2). "
   "Injected: the training record rank 1 gets at step 57 (batch position 5, epoch 0; global record 4994) had all 64 "
   "features set to 3e38 (prep_data.py --poison 1:57:5). Layout: torchrun --log_dir logs/<host> --tee 3: per-rank "
   "files under logs/<host>/lm-probe-57_<suffix>/attempt_0/<local_rank>/ and the agent console (worker lines with "
   "[defaultN]: prefixes) in logs/<host>/console.log. Agent exit codes not captured separately (both ended with "
   "torchrun's ChildFailedError). Commands: bash runs-src/case08.sh."),
 "09": dict(multi=True, note=MULTI + COMMON +
   "Hosts worker-17 / worker-18, rdzv_id mlp-sweep-218, port 29819, both agents with --max-restarts 2 --tee 3, "
   "--pg-timeout 60. Both nodes get the same environment, PYTHONPATH=/opt/ml-site:/work/firstlook-b2/runs-src/pkgs "
   "(trainlib 0.9.2 lives in the second). Injected: /opt/ml-site is empty on worker-17, while on worker-18 an older "
   "copy of the job's helper package, trainlib 0.8.1 (runs-src/pkgs-0.8: its sched.py has make_scheduler, not "
   "build_scheduler), is bind-mounted there inside worker-18's mount namespace and shadows 0.9.2. Layout: per-node "
   "console files logs/worker-17.log and logs/worker-18.log. Agent exit codes not captured separately. "
   "Commands: bash runs-src/case09.sh."),
 "10": dict(multi=True, note=MULTI + COMMON +
   "Hosts g2-node01 / g2-node02, rdzv_id g2-pretrain-0093, port 29820, 250 steps. Nothing fatal injected; noise only: "
   "the forward runs under the deprecated torch.cuda.amp.autocast(enabled=False) (--autocast); DDP is built with "
   "find_unused_parameters=True although every parameter is used (--find-unused); rank 0 logs the job config "
   "runs-src/job-config-10.json, whose restart_policy quotes error strings; rank 0 pushes metrics every 10 steps to a "
   "local HTTP sink (runs-src/metrics_sink.py 29930 2) that answers 503 to its first 2 requests, so the step-10 push "
   "fails twice (logged with the HTTPError traceback) and goes through on attempt 3. The run completed: all 4 ranks "
   "logged 'training finished', agents exited 0. Layout: archive logs/g2-pretrain-0093.tar.gz holding "
   "g2-pretrain-0093/<host>/console.log per agent (--tee 3, [defaultN]: prefixes) and the sink's access log "
   "g2-pretrain-0093/metrics-sink.log. Commands: bash runs-src/case10.sh."),
}

for n, c in cases.items():
    d = os.path.join(B, f"run-{n}")
    with open(os.path.join(d, "source.json"), "w") as f:
        json.dump({"source": SRC, "framework": FW, "multi_rank": True if c["multi"] or n == "05" else False,
                   "multi_node": c["multi"], "collector_note": c["note"]}, f, indent=2)
        f.write("\n")
print("ok")
