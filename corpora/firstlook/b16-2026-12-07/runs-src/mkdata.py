import os, sys, json, struct, random
root = sys.argv[1]; nshards = int(sys.argv[2]); rec = int(sys.argv[3])
os.makedirs(root, exist_ok=True); random.seed(1); shards = []
for s in range(nshards):
    fn = f"shard-{s:05d}.bin"
    with open(os.path.join(root, fn), "wb") as f:
        for _ in range(rec):
            v = [random.gauss(0, 1) for _ in range(32)]; f.write(struct.pack("33f", *v, v[0] * 0.5))
    shards.append({"file": fn, "records": rec})
json.dump({"version": 1, "shards": shards}, open(os.path.join(root, "index.json"), "w"), indent=1)
