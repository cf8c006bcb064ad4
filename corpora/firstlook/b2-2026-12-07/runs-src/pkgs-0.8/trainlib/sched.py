"""Learning-rate schedules."""
import math

import torch


def make_scheduler(opt, warmup, total):
    """Linear warmup then cosine decay."""
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        t = min(1.0, (step - warmup) / max(1, total - warmup))
        return 0.5 * (1 + math.cos(math.pi * t))
    return torch.optim.lr_scheduler.LambdaLR(opt, f)
