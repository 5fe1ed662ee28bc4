#!/usr/bin/python3
"""PyTorch peer of `ember train --model gpt`: the same character-level GPT, data, batch order,
optimizer and schedule (tools/cli/gpt.h, tools/cli/text_data.cpp). Prints one JSON line:
{"ms_per_step", "tokens_per_s", "peak_rss_mb", "val_loss", "steps", "vocab", "step_ms", "losses"}
(step_ms and losses: every step's time and training loss, as `ember train`'s metrics.jsonl).
Run with Debian's PyTorch: /usr/bin/python3 bench/peers/gpt_peer.py --steps 100"""
import argparse
import json
import math
import resource
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64(x):
    z = (x + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def load_corpus(path):
    p = Path(path)
    files = sorted(p.glob("*.txt")) if p.is_dir() else [p]
    text = b"".join(f.read_bytes() for f in files)
    vocab = sorted(set(text))
    index = {b: i for i, b in enumerate(vocab)}
    ids = torch.tensor([index[b] for b in text], dtype=torch.long)
    split = len(text) * 9 // 10
    return len(vocab), ids[:split], ids[split:]


def windows(tokens, offsets, context):
    idx = torch.tensor(offsets).unsqueeze(1) + torch.arange(context)
    return tokens[idx], tokens[idx + 1]


def train_offsets(n_train, seed, step, batch, context):
    return [splitmix64(seed ^ (((step * batch + b) * GOLDEN) & MASK64)) % (n_train - context)
            for b in range(batch)]


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.Module()
        self.attn.c_attn, self.attn.c_proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Module()
        self.mlp.c_fc, self.mlp.c_proj = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def attention(self, x):
        B, T, C = x.shape
        q, k, v = (z.view(B, T, self.heads, C // self.heads).transpose(1, 2)
                   for z in self.attn.c_attn(x).split(C, dim=2))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))  # PyTorch 1.13 has no SDPA
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        y = att.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        return self.attn.c_proj(y.transpose(1, 2).reshape(B, T, C))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, context, layers, heads, dim):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
        self.h = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        for name, p in self.named_parameters():  # GPT-2 init, residual projections scaled
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * layers))
            elif name.endswith(".bias") and "ln_" not in name:
                nn.init.zeros_(p)
            elif p.dim() >= 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
        for block in self.h:
            x = block(x)
        return F.linear(self.ln_f(x), self.wte.weight)  # head tied to wte


def loss_fn(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))


def lr_at(step, a):
    if step < a.warmup:
        return a.lr * (step + 1) / a.warmup
    min_lr = a.lr / 10
    t = (step - a.warmup) / max(1, a.steps - a.warmup)
    return min_lr + 0.5 * (a.lr - min_lr) * (1 + math.cos(math.pi * t))


@torch.no_grad()
def val_loss(model, val, a):
    model.eval()
    n = len(val) - a.context
    offsets = [i * n // a.eval_windows for i in range(a.eval_windows)]
    total = 0.0
    for i in range(0, len(offsets), a.batch_size):
        x, y = windows(val, offsets[i:i + a.batch_size], a.context)
        total += loss_fn(model, x, y).item() * len(x)
    model.train()
    return total / len(offsets)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    for flag, kind, default in [("data", str, "data/austen"), ("steps", int, 600),
                                ("batch-size", int, 32), ("context", int, 64), ("layers", int, 4),
                                ("heads", int, 4), ("dim", int, 128), ("lr", float, 3e-3),
                                ("warmup", int, 50), ("weight-decay", float, 0.1),
                                ("seed", int, 1337), ("threads", int, 2),
                                ("eval-windows", int, 64)]:
        p.add_argument("--" + flag, type=kind, default=default)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    vocab, train, val = load_corpus(a.data)
    model = GPT(vocab, a.context, a.layers, a.heads, a.dim)
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": a.weight_decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=a.lr, betas=(0.9, 0.95), eps=1e-8)
    times, losses = [], []
    for step in range(a.steps):
        start = time.perf_counter()
        x, y = windows(train, train_offsets(len(train), a.seed, step, a.batch_size, a.context),
                       a.context)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model, x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        losses.append(loss.item())  # `ember train` reads the loss inside its timed step too
        times.append(time.perf_counter() - start)
    timed = times[5:] or times
    ms = 1000 * sum(timed) / len(timed)
    print(json.dumps({"ms_per_step": round(ms, 3),
                      "tokens_per_s": round(a.batch_size * a.context / (ms / 1000), 1),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                      "val_loss": round(val_loss(model, val, a), 5), "steps": a.steps,
                      "vocab": vocab, "step_ms": [round(1000 * t, 3) for t in times],
                      "losses": [round(v, 5) for v in losses]}))


if __name__ == "__main__":
    main()
