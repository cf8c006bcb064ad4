"""Learning-rate schedules."""
import math

import torch


def build_scheduler(opt, warmup, total, min_ratio=0.1):
    """Linear warmup then cosine decay to min_ratio * base lr."""
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        t = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))
    return torch.optim.lr_scheduler.LambdaLR(opt, f)
