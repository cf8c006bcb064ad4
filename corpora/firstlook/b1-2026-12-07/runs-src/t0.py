import os, socket, torch, torch.distributed as dist, datetime
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
t=torch.ones(1)*dist.get_rank(); dist.all_reduce(t)
print(socket.gethostname(), os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"], dist.get_rank(), t.item(), flush=True)
dist.destroy_process_group()
