# run-09: 2 nodes (gpu-s01, gpu-s02) x 2 ranks; every rank writes its own zstd-compressed checkpoint shard every
# 25 steps (--ckpt-sharded --ckpt-compress zstd; `import zstandard` happens inside the save function).
# Injected: on gpu-s02 the Python site-packages dir is an overlayfs (inside that node's mount namespace) whose upper
# layer whites out zstandard/ and zstandard-0.25.0.dist-info/, i.e. the package is not installed on that node.
# Layout: per-node torchrun --log_dir trees (--redirects 3) under logs/<host>/, both agents' consoles merged in
# one file logs/launcher.out.
. /work/firstlook-b3/runs-src/lib.sh
prep 09; JOBID=seqreg-zst-12
SP=/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages
mkdir -p $W/ovl/upper $W/ovl/work
mknod $W/ovl/upper/zstandard c 0 0; mknod $W/ovl/upper/zstandard-0.25.0.dist-info c 0 0
ARGS="--steps 120 --log-every 5 --ckpt-dir $W/shared/ckpt --ckpt-every 25 --ckpt-sharded --ckpt-compress zstd --pg-timeout 60"
mkdir -p $C/logs/gpu-s01 $C/logs/gpu-s02
agent gpu-s01 29909 $C/logs/launcher.out --log_dir $C/logs/gpu-s01 --redirects 3 -- $ARGS
sleep 1
NODE_SETUP="mount -t overlay overlay -o lowerdir=$SP,upperdir=$W/ovl/upper,workdir=$W/ovl/work $SP" \
  agent gpu-s02 29909 $C/logs/launcher.out --log_dir $C/logs/gpu-s02 --redirects 3 -- $ARGS
wait; cat $W/rc.txt; echo done
