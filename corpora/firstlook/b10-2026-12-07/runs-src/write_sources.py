import json, os
B = "/work/staging/b10"
SRC = "real torchrun run on this machine, 2026-12-07"
COMMON = ("Obtained by running case script runs-src/{c}.sh (shared runs-src/trainer.py, runs-src/lib.sh): real torchrun (torch 2.13.0+cpu, gloo backend, c10d rendezvous) on a 2-core CPU box; "
          "each 'node' is a torchrun agent started inside `unshare --uts --mount` with its own hostname and a per-case hosts file bind-mounted over /etc/hosts mapping node names to 127.0.10.x. "
          "Outside actions and their times are in runs-src/inject-records/{r}.txt. Files are the unedited outputs: {layout} Nothing was dropped or edited. ")
DISJ = ("Disjointness: this is a fresh run on this machine (no URL); grep -rlF of distinctive verbatim lines {lines} over /work/shared/eval/dev, /work/main/corpora, /work/main/patterns, /work/staging/b10 gave no hit outside this folder and runs-src; no other b10 collector uses these runs.")
cases = json.load(open(os.path.join(B, "runs-src", "cases.json")))
for c in cases:
    d = os.path.join(B, c["case"])
    note = COMMON.format(c=c["script"], r=c["rec"], layout=c["layout"]) + c.get("extra", "") + " " + DISJ.format(lines=json.dumps(c["lines"]))
    js = {"source": SRC, "framework": c["framework"], "multi_rank": True, "multi_node": c["multi_node"], "collector_note": note}
    json.dump(js, open(os.path.join(d, "source.json"), "w"), indent=2)
    print(c["case"], "ok")
