"""Writes run-NN/source.json for the b9 run cases."""
import json
COMMON = (" Multi-node runs: each node is a torchrun agent started inside `unshare --uts --mount` with its own hostname; a per-case hosts "
  "file bind-mounted over /etc/hosts maps node names to 127.0.9.11/12/13 (loopback); c10d rendezvous on that address. Machine: 2 CPU cores, "
  "no GPU, PyTorch 2.13.0+cpu, gloo backend, DDP. Model: small MLP classifier (runs-src/b9core.py) on synthetic .npz shards listed in index.json "
  "(runs-src/mkdata.py). Each node's console (stdout+stderr merged) is fed through runs-src/collect9.py, which adds the platform-style prefix named above. "
  "Case script runs-src/caseNN.sh; its timeline record is runs-src/inject-records/cNN.txt. Nothing was dropped or edited in the logs. "
  "Disjointness: runs-src/disjoint_check.sh (output runs-src/disjoint_check.out) greps -rlF the two strings %s in /work/shared/eval/dev, "
  "/work/main/corpora (all, incl. firstlook b1..b8) and the other /work/staging/b9 folders: 0 files hit; the same strings give 0 hits in "
  "/work/main/patterns (grep -rlF, files not read). Source is a local run, so there is no URL/issue number to check.")
cases = {
 "01": (True, "ColossalAI-Booster-style console (rich-like colossalai logger lines + tqdm bars) printed by runs-src/colossal_like.py",
  "Layout: logs/colossal-job-logs.zip holding per-node folders clai-node-0/stdout.log and clai-node-1/stdout.log (agent console, workers not tee'd; "
  "trainer lines from rank 0 only, tqdm \\r-updates stay on one line until the bar closes). Hosts clai-node-0, clai-node-1, 2 workers each (world 4). "
  "Command: torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint clai-node-0:29901 --rdzv-id clai-cls-118 "
  "runs-src/colossal_like.py --data <data> --ckpt <ckpt> --epochs 7. Nothing injected. Ran 15:39:15-15:39:54 UTC, 7 epochs x 120 steps, "
  "exit 0 on both nodes, model_epochN.pt/optimizer_epochN.pt written every epoch.",
  "'clai-cls-118' and 'Booster init: plugin=TorchDDPPlugin, mixed_precision=None, params=0.33M'"),
 "02": (True, "torchrec-DLRM-example-style logging (INFO:root:epoch .. batch .. auc ..) printed by runs-src/recsys_like.py; DataLoader with 2 persistent workers per rank",
  "Layout: logs/job-driver.log = both nodes' consoles merged, each line prefixed Ray-style '(TorchTrainerWorker pid=<torchrun agent pid>, ip=<node ip>) '. "
  "Hosts rec-w0 (127.0.9.11), rec-w1 (127.0.9.12), 2 workers each. Command: torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
  "--rdzv-endpoint rec-w0:29902 --rdzv-id dlrm-dense-55 runs-src/recsys_like.py --in_memory_binary_criteo_path <data> --epochs 20 --save_dir <ckpt>. "
  "Injected from outside: at 15:40:52.6 UTC (8 s after rank 0 logged 'epoch 2 batch 20') kill -KILL of pid 4389, one of the two DataLoader worker "
  "processes of rank 3 (trainer pid 4345, node rec-w1). Agents exited 15:40:56; 5 epoch checkpoints had been written.",
  "'(TorchTrainerWorker pid=4213, ip=127.0.9.12)' and 'INFO:root:epoch 2 batch 20 auc'"),
 "03": (True, "ESPnet-style trainer log ('[host] ts (module:line) INFO: Nepoch:train:a-bbatch: iter_time=..') printed by runs-src/espnet_like.py, --resume from exp/checkpoint.pth",
  "Layout: two consecutive jobs on the same exp dir; per job and node a torchrun --log-dir tree with --tee 3: logs/jobN/<host>/console.log (agent console, "
  "worker lines prefixed [default0]:) and logs/jobN/<host>/torchelastic/<rdzv>_<rand>/attempt_0/0/{stdout,stderr}.log. Hosts espnet-n01..n03, 1 worker each. "
  "Job 1 (15:42:00-15:42:53 UTC): torchrun --nnodes 3 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint espnet-n01:29903 --rdzv-id espnet-cls-1 "
  "--log-dir .. --tee 3 runs-src/espnet_like.py --config conf/train_mlp_h256.yaml --output_dir exp/asr_mlp_cls --train_data_path <data> --resume true; "
  "finished 10 epochs, exit 0. Job 2 (15:42:55-15:43:14): same command with --rdzv-id espnet-cls-2 and --config conf/train_mlp_h384.yaml. "
  "Injected from outside: only the config switch between the jobs (model_conf.hidden 256 -> 384, max_epoch 10 -> 20); the exp dir kept job 1's checkpoint.pth. "
  "Job 2 exited non-zero on all nodes. (console.log of job 1 on n02/n03 is empty: only rank 0 logs INFO and job 1 had no errors.)",
  "'espnet-cls-2' and the 'size mismatch for body.0.weight ... torch.Size([256, 64]) ... torch.Size([384, 64])' line"),
 "04": (False, "MLflow-tracking-style console ('metric step=.. key=.. value=.. timestamp=..', mlflow.tracking.fluent logger lines) printed by runs-src/mlflow_like.py",
  "Layout: logs/mlp-cls-trainer-logs.tar.gz holding mlp-cls-trainer-0/trainer.log = the pod's log as `kubectl logs --timestamps` would give it "
  "(RFC3339Nano UTC prefix). Single node mlp-cls-trainer-0 (still in its own uts/mount namespace), 2 workers. Command: torchrun --nnodes 1 --nproc-per-node 2 "
  "--rdzv-backend c10d --rdzv-endpoint mlp-cls-trainer-0:29904 --rdzv-id mlflow-run-771 runs-src/mlflow_like.py --data <data> --artifact-dir <art> "
  "--max-steps 900 --ckpt-every 300. Injected from outside: at 15:43:33.5 UTC (after 'metric step=200' appeared) rank 1's process was attached with "
  "`strace -f -p <pid> -e trace=writev -e inject=writev:delay_enter=8000 -o /dev/null` (each writev syscall of that process, which includes its gloo sends, "
  "delayed 8 ms) until the job ended. Job ran 15:43:13-15:45:52 UTC and exited 0; 3 checkpoints written. Healthy-but-slow case.",
  "'mlflow-run-771' and 'key=samples_per_sec value='"),
 "05": (True, "Sockeye-3-style console ('[ts:INFO:sockeye.training:..] Epoch[..] Batch [..] Speed: ..', Checkpoint [N] summaries) printed by runs-src/sockeye_like.py",
  "Layout: logs/train.log = both nodes' consoles merged, each line prefixed '[<host>] '. Hosts sockeye-node-1 (127.0.9.11), sockeye-node-2 (127.0.9.12), 2 workers each, "
  "elastic launch: torchrun --nnodes 1:2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint sockeye-node-1:29905 --rdzv-id sockeye-mlp-2 runs-src/sockeye_like.py "
  "--prepared-data <data> --output <model> --max-updates 1500 --dist. Injected from outside before launch (15:47:08 UTC): node 2's /etc/hosts maps "
  "sockeye-node-1 to 192.0.2.77 (an address on the eth0 subnet that no host has); node 1's /etc/hosts is correct. "
  "Agents exited by 15:48:19; node 1 wrote params.00001..00005. (An earlier attempt that mapped the name to another 127.x address was discarded: "
  "loopback reached the store anyway, no fault.)",
  "'sockeye-node-2' and 'failed to connect to [::ffff:192.0.2.77]:29905'"),
 "06": (True, "Hugging-Face-accelerate-no_trainer-style script (accelerator.print equivalent, tqdm.auto bar on local main process, torchmetrics eval) runs-src/accel_tqdm.py",
  "Layout: `kubectl logs --timestamps` per pod: logs/acc-ft-master-0.log, logs/acc-ft-worker-0.log (RFC3339Nano UTC prefix). Hosts acc-ft-master-0, acc-ft-worker-0, "
  "2 workers each. Command: torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint acc-ft-master-0:29906 --rdzv-id acc-ft-3391 "
  "runs-src/accel_tqdm.py --train_dir <data> --output_dir <out> --num_train_epochs 8. Injected from outside before launch: torchmetrics 1.9.0 and "
  "lightning-utilities 0.15.3 were pip-installed (--target) into a site dir that is put on PYTHONPATH on acc-ft-master-0 only; acc-ft-worker-0's "
  "environment does not have it (the base image has no torchmetrics). Ran 15:48:43-15:50:52 UTC; both agents exited non-zero, no checkpoint written.",
  "'acc-ft-worker-0' and \"No module named 'torchmetrics'\""),
 "07": (True, "Megatron-DeepSpeed-style console (DeepSpeed '[ts] [INFO] [logging.py:96:log_dist] [Rank 0] step=..' lines + Megatron ' iteration N/ M | consumed samples ..' lines) printed by runs-src/mds_like.py",
  "Layout: logs/slurm-771204.out = all nodes' consoles merged with srun --label style prefixes '0: ' (mds-gpu-01), '1: ' (mds-gpu-02), '2: ' (mds-gpu-03). "
  "2 workers per node. Elastic command: torchrun --nnodes 2:3 --nproc-per-node 2 --max-restarts 3 --rdzv-backend c10d --rdzv-endpoint mds-gpu-01:29907 "
  "--rdzv-id 771204 runs-src/mds_like.py --data-path <data> --save <ckpt> --load <ckpt> --train-iters 1200 --save-interval 100 (trainer resumes from <ckpt>/latest on restart). "
  "Nodes 0 and 1 started 15:51:08-09 UTC. Injected from outside: node 2 (mds-gpu-03) was started late, at 15:52:02.8 UTC (12 s after iteration 100 appeared); "
  "this was meant as a healthy late-join scale-up. All agents exited by 15:53:09 UTC; checkpoints global_step100..400 exist; what happened after the join is in the log.",
  "'mds-gpu-03' and \"The node 'mds-gpu-03_10203_0' has failed\""),
 "08": (True, "Hydra-job-logging-style trainer ('[ts][__main__][INFO] - ..') that writes its own rank{N}.log per rank, runs-src/hydra_like.py",
  "Layout: logs/outputs/2026-12-07/15-53-23/rank0.log..rank3.log written by the trainer itself (rank 0 also prints to its console), plus each node's "
  "launcher console logs/launcher/hyd-a100-1.out and logs/launcher/hyd-a100-2.out (uncaught tracebacks go to stderr, i.e. only there). Hosts hyd-a100-1, hyd-a100-2, 2 workers each. "
  "Command: torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint hyd-a100-1:29908 --rdzv-id hydra-cls-42 runs-src/hydra_like.py "
  "data.root=<data> run_dir=<logs/outputs/..> trainer.max_steps=1500. Injected from outside before launch (15:53:23 UTC): GLOO_SOCKET_IFNAME=ib0 exported in "
  "hyd-a100-2's job environment only (the machine has no ib0 interface). Agents exited 15:55:31 UTC, non-zero; no checkpoint written.",
  "'hyd-a100-2' and 'Unable to find address for: ib0'"),
 "09": (True, "PyTorch-Ignite-style console (ignite.* logger lines, 'Epoch[e] Iteration[i/n] Loss: x', 'Validation Results - Epoch: ..') printed by runs-src/ignite_like.py",
  "Layout: Kubernetes node log tree logs/pods/kubeflow_<pod>_<uid>/trainer/0.log in CRI format ('<RFC3339Nano> stdout F <line>'; the collector merges stdout and "
  "stderr, so every line is tagged stdout). Pods/hosts ign-train-master-0, ign-train-worker-0, ign-train-worker-1, 1 worker each. Command: torchrun --nnodes 3 "
  "--nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint ign-train-master-0:29909 --rdzv-id ign-mlp-808 runs-src/ignite_like.py --data <data> --output-path <out> --num-epochs 12. "
  "Injected from outside: at 15:56:17.3 UTC (20 s after 'Validation Results - Epoch: 1') kill -HUP 10875, the torchrun agent process on ign-train-worker-1. "
  "All agents exited by 15:56:20; last checkpoints checkpoint_1120.pt / checkpoint_1280.pt.",
  "'ign-train-worker-1' and 'Process 10875 got signal: 1'"),
}
for c, (mn, fw, note, strs) in cases.items():
    d = {"source": "real torchrun run on this machine, 2026-12-07",
         "framework": "PyTorch 2.13.0+cpu, torchrun (torch.distributed.run), gloo backend, DDP; " + fw,
         "multi_rank": True, "multi_node": mn, "collector_note": note + COMMON % strs}
    json.dump(d, open("/work/staging/b9/run-%s/source.json" % c, "w"), indent=1, ensure_ascii=False)
