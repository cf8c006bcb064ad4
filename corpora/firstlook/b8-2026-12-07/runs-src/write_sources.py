"""Writes source.json for /work/staging/b8/run-01..09 (notes written by the collector after the runs)."""
import json, os
B8 = "/work/staging/b8"
SRC = "real torchrun run on this machine, 2026-12-07"
FW = "PyTorch 2.13.0+cpu, torchrun (torch.distributed.run), gloo backend, DDP; "
COMMON = (" Multi-node runs: each node is a torchrun agent started inside `unshare --uts --mount` with its own hostname; a "
          "per-case hosts file bind-mounted over /etc/hosts maps the node names to 127.0.3.11/12/13 (loopback); c10d "
          "rendezvous on that address. Machine: 2 CPU cores, no GPU. Model: MLP classifier (b8core.py) on synthetic "
          "shards described by index.json (mkdata.py). Each node's console is fed through runs-src/collect.py, which "
          "adds the platform-style prefix named below. Timeline records the case script wrote: runs-src/inject-records/cNN.txt. "
          "Nothing was dropped or edited in the logs.")
DISJ = (" Disjointness: runs-src/disjoint_check.sh (output runs-src/disjoint_check.out) greps -rlF the host string {} and the "
        "line {} in /work/shared/eval/dev, /work/main/corpora (all, incl. firstlook b1..b7), /work/staging/b7 and the other "
        "/work/staging/b8 folders: 0 files hit; the same two strings give 0 hits in /work/main/patterns (grep -rlF, files not read). "
        "Source is a local run, so there is no URL/issue number to check.")
cases = {
 "run-01": dict(fw="Keras-model.fit-style console printed by runs-src/keras_like.py", mn=True, h="'kr-node02: '", l="'Epoch 1: val_loss improved from inf to 0.69772'", note=
  "Layout: logs/console.log = both nodes' agent consoles merged into one file, each line prefixed pdsh-style with '<host>: ' "
  "(workers not --tee'd; Keras-style lines from rank 0 only, Python warnings from every rank). Hosts kr-node01, kr-node02, "
  "2 workers each (world 4). Command (bash runs-src/case01.sh), with PYTHONWARNINGS=always in the job environment: torchrun "
  "--nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint kr-node01:29801 --rdzv-id keras-fit-0412 "
  "runs-src/keras_like.py --data <data> --epochs 6 --batch-size 32 --ckpt-dir <ckpt>. Nothing injected: the trainer uses a "
  "DataLoader with 3 workers on a 2-core machine, torch.cuda.amp.GradScaler on CPU, steps the LR scheduler once before the "
  "first optimizer step, DDP find_unused_parameters=True and calls F.softmax without dim each step, so warnings repeat "
  "throughout. Ran 14:56:34-14:57:21 UTC, 6 epochs x 120 steps, exit 0 on both nodes; one checkpoint model.01-0.70.pt (3.9 MB) "
  "written (later epochs' val_loss did not improve)."),
 "run-02": dict(fw="PaddleNLP-Trainer-style logging printed by runs-src/paddlenlp_like.py (faulthandler enabled)", mn=True, h="'ernie-ft-worker-1'", l="'exitcode  : -6 (pid: 5542)  (SIGABRT)'", note=
  "Layout: logs/<pod>.log = each node's console as `kubectl logs --timestamps` shows it (RFC3339Nano UTC prefix per line). "
  "Hosts/pods ernie-ft-worker-0/1/2, 1 worker each (world 3). Command (bash runs-src/case02.sh): torchrun --nnodes 3 "
  "--nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint ernie-ft-worker-0:29802 --rdzv-id paddle-sft-7731 "
  "runs-src/paddlenlp_like.py --data <data> --output_dir <out> --max_steps 1500 --save_steps 500 --eval_steps 250. Launched "
  "14:58:48 UTC; first global_step line 14:58:55.9. Injected from outside at 14:59:20.961: `kill -ABRT 5542` = the rank-1 "
  "worker process on ernie-ft-worker-1 (~25 s after the first logged step). Agents ended by 14:59:24. Collection note: a "
  "first attempt of this case a minute earlier was aborted by me (the script hung in a command substitution); I killed its "
  "processes by pid and re-ran the case from a clean folder; two lines of the aborted attempt's script landed in the "
  "inject record c02.txt (annotated there)."),
 "run-03": dict(fw="PyTorch-Lightning-style console (tqdm bars, ModelCheckpoint message) printed by runs-src/lightning_like.py", mn=True, h="'pl-job-master-0'", l="\"'val_loss' reached 0.82233 (best 0.82233)\"", note=
  "Layout: logs/pods/ml-train_<pod>_<uid>/trainer/0.log = Kubernetes node log tree in CRI format ('<RFC3339Nano> stdout F "
  "<line>'; stderr also tagged stdout because the collector got one merged stream). tqdm progress lines contain carriage "
  "returns as written. Hosts/pods pl-job-master-0, pl-job-worker-0, 2 workers each (world 4). Command (bash runs-src/case03.sh): "
  "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint pl-job-master-0:29803 --rdzv-id pl-cls-20261207 "
  "runs-src/lightning_like.py --data <data> --default_root_dir <root> --max_epochs 10 --every_n_epochs 6. No outside "
  "injection: the trainer puts a lambda (target_transform) into hyper_parameters, which are saved inside the checkpoint dict; "
  "the first checkpoint save happens after epoch index 5 (~22 s of training). Ran 15:03:19-15:03:50 UTC. (A first run at "
  "14:59:22 with --max_epochs 8 --every_n_epochs 3 produced only ~11 s of steps and was overwritten by this re-run.)"),
 "run-04": dict(fw="verl-style `step:N - actor/... - critic/...` console printed by runs-src/verl_like.py", mn=True, h="'gpu-a18_'", l="'step:636 - global_seqlen/min:33'", note=
  "Layout: logs/slurm-552310.out = both nodes' agent consoles merged into one file with srun --label style prefixes "
  "('0: ' = node gpu-a17, '1: ' = node gpu-a18). 2 workers per node (world 4); metric lines from rank 0 only. Command "
  "(bash runs-src/case04.sh), with B8_PG_TIMEOUT=60 (process-group timeout 60 s): torchrun --nnodes 2 --nproc-per-node 2 "
  "--rdzv-backend c10d --rdzv-endpoint gpu-a17:29804 --rdzv-id 552310 runs-src/verl_like.py --data <data> --ckpt <ckpt> "
  "--total_epochs 6 --save_freq 200 --test_freq 100. No outside injection: the prompt-length filter keeps 13994 samples; the "
  "sampler is made to not pad, so ranks 0,1 get 3499 samples (107 batches of 33) and ranks 2,3 get 3498 (106 batches); each "
  "rank computes total_training_steps from its own dataloader (rank 0 prints 642) and returns with exit 0 when reached. "
  "Ranks 2,3 (node gpu-a18) thus finish after step 636 and exit 0 while ranks 0,1 are still training. Ran 15:00:44-15:01:23 UTC. "
  "(A first attempt at 14:59:49 died at step 1 on a format-string bug in my trainer and was overwritten by this re-run.)"),
 "run-05": dict(fw="mmcv-1.x / MMDetection-2.x-style logging printed by runs-src/mmdet_like.py", mn=True, h="'det-n2'", l="'Unterminated string starting at: line 18 column 7'", note=
  "Layout: per node logs/<host>/console.log (agent console with torchrun --tee 3, so worker lines carry [defaultN]: "
  "prefixes) plus the torchrun --log-dir tree logs/<host>/torchelastic/<rdzv_id>_<rand>/attempt_0/<local_rank>/{stdout,stderr}.log. "
  "Hosts det-n1, det-n2, 2 workers each (world 4). Each node reads its own local copy of the dataset (per-node copy "
  "bind-mounted at the same path <W>/data). Command (bash runs-src/case05.sh): torchrun --nnodes 2 --nproc-per-node 2 "
  "--rdzv-backend c10d --rdzv-endpoint det-n1:29805 --rdzv-id mmdet-cls-31 --log-dir logs/<host>/torchelastic --tee 3 "
  "runs-src/mmdet_like.py configs/mlp_cls_4x32_6e.py --launcher pytorch --work-dir <W>/work_dirs/mlp_cls_4x32_6e --data-root "
  "<W>/data --epochs 6. Injected from outside before launch (15:00:02 UTC): `truncate -s 300` of det-n2's local copy of "
  "index.json (original ~800 bytes); det-n1's copy intact. Run ended 15:00:11 UTC, before any training step."),
 "run-06": dict(fw="torchrun agents only (trainer runs-src/plain_trainer.py never started)", mn=True, h="'cn033 python3['", l="\"rendezvous 'trainjob-4471'\"", note=
  "Layout: logs/<host>.journal = each node's agent console as a journald short export ('Mon DD HH:MM:SS <host> "
  "python3[<agent pid>]: <line>'). Hosts cn031, cn032, cn033, 1 worker each planned (world 3). Command (bash runs-src/case06.sh): "
  "torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint cn031:29806 --rdzv-id <ID> --rdzv-conf "
  "join_timeout=60 runs-src/plain_trainer.py --data <data> --out <out>. Injected from outside at launch (15:01:25 UTC): cn031 "
  "and cn032 got --rdzv-id trainjob-4471, cn033 got --rdzv-id trainjob-4470 (a stale job id in its launch environment); "
  "everything else identical. All agents ended 15:02:27-15:02:28 UTC; no worker was started."),
 "run-07": dict(fw="loguru 0.8.0 logging in runs-src/loguru_trainer.py", mn=True, h="'[lg-1] '", l="'Logging error in Loguru Handler #2'", note=
  "Layout: logs/console.log = both nodes' agent consoles merged, each line prefixed '[<host>] '; logs/<host>-logdir/ = the "
  "contents of each node's job log dir (--log-dir: loguru file sink train_rank<R>.log per rank, metrics.jsonl written by "
  "rank 0) copied after the run. Hosts lg-0, lg-1, 2 workers each (world 4). Command (bash runs-src/case07.sh): torchrun "
  "--nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint lg-0:29807 --rdzv-id lg-run-9 runs-src/loguru_trainer.py "
  "--data <data> --log-dir <W>/runlogs --ckpt-dir <ckpt> --steps 1200. Injected from outside before launch (15:02:30 UTC): each "
  "node's log dir is a separate tmpfs of size=160k (mounted on the host, bind-mounted at <W>/runlogs in the node namespace); "
  "the DEBUG-level per-step file sink fills it during the run. Launched 15:02:32, agents ended 15:03:17 UTC; df after: both "
  "tmpfs 160/160 KiB used. console.log is 1.3 MB."),
 "run-08": dict(fw="Detectron2-style logging printed by runs-src/d2_like.py", mn=True, h="'/work/staging/b8-work-runs/c08/out/model_0000994.pth' (no host string is in the file contents)", l=None, note=None),
 "run-09": dict(fw="plain logging.Formatter('%(asctime)s %(levelname)s [%(process)d] %(name)s: %(message)s') in runs-src/plain_trainer.py", mn=False, h="'hpc-c12'", l=None, note=None),
}
import sys
extra = json.load(open(os.path.join(B8, "runs-src", "notes89.json")))
for k in ("run-08", "run-09"):
    cases[k].update(extra[k])
for c, d in cases.items():
    j = {"source": SRC, "framework": FW + d["fw"], "multi_rank": True, "multi_node": d["mn"],
         "collector_note": d["note"] + COMMON + DISJ.format(d["h"], d["l"])}
    json.dump(j, open(os.path.join(B8, c, "source.json"), "w"), indent=1)
    print(c, "ok")
