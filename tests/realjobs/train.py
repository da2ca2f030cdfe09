"""A small data-parallel x tensor-parallel training loop with one injected
fault, for making real multi-rank NCCL / PyTorch logs (see README.md).

FAULT=kind:rank:step[:arg] in the environment picks the fault:
  stall_tp      the rank blocks in host code before its tp all_gather
  stall_dp      the rank blocks in host code before its first dp all_reduce
  kill          the rank SIGKILLs itself
  kill_node     every rank of the rank's node SIGKILLs itself
  exception     the rank raises ValueError
  oom           the rank asks the GPU for far more memory than it has
  mismatch_op   the rank calls all_reduce where the others call all_gather (tp)
  mismatch_dp   the rank broadcasts where the others all_reduce (first dp bucket)
  size          the rank all_reduces arg floats instead of 4096 (last dp bucket)
  dtype         the rank all_reduces its last dp bucket as bfloat16 (the others: float32)
  skip_bcast    the rank skips the broadcast on the default group
  freeze        every rank of the rank's node stops itself and its agent (SIGSTOP)
  straggler     the rank sleeps arg seconds every step (from step 0)
  stall_init    the rank blocks in host code before init_process_group (step ignored)
  exit0         the rank exits with status 0 (sys.exit) at the start of the step
  short         the rank leaves the loop at the step (as when its data runs out)
                and goes on to the final barrier
  stall_pp      the rank blocks in host code before its pipeline send (PP=1)
  skip_send     the rank skips its pipeline send (PP=1)
  stall_recv    the rank blocks in host code before its pipeline receive (PP=1)
  skip_recv     the rank skips its pipeline receive (PP=1)
  cuda_assert   the rank indexes a tensor out of range on the GPU (a device-side
                assert, as a label out of range does in a loss)
  cuda_fault    the rank runs a kernel that writes far outside its memory (an
                illegal address; a Triton kernel, or cuda_assert without Triton)
  segv          the rank dies of SIGSEGV (as a crash in a C extension)
  abort         the rank calls abort() (SIGABRT)
  kill_init     the rank SIGKILLs itself before init_process_group (step ignored)
  exception_init  the rank raises FileNotFoundError before init_process_group
                (step ignored)
  exit1         the rank logs an error and exits with status 1 (sys.exit)
  gpu_hang      the rank's GPU spins in a kernel (torch.cuda._sleep) before its
                tp all_gather: the collective is enqueued behind it and never starts
  extra_barrier the rank calls dist.barrier() (the default group) at the step,
                which the others do not
  sigterm       the rank gets SIGTERM from outside (a scheduler's preemption)
  stall_final   the rank blocks in host code after the loop, before the final
                barrier (step ignored)
  kill_final    the rank SIGKILLs itself after the loop, before the final
                barrier (step ignored)
  slow_init     the rank loads its data for arg seconds (default 40) before
                init_process_group, longer than the others wait (step ignored)
  thread_exc    a data-loading thread of the rank raises ValueError and the
                main thread waits for its batch forever
  slow_step     the rank sleeps arg seconds (default 30) once, at the step:
                longer than the watchdog's timeout

FAULT_ATTEMPTS=0[,1...] injects it only in those torchrun attempts (restart
count; MAX_RESTARTS=N in run-job.sh), every attempt otherwise.

PP=1 adds a pipeline stage to every step: each rank receives an activation
from the same local rank of the node before it and sends one to the node
after it (dist.recv / dist.send on the default group; PP_GROUP=1: on the dp
group; PP_BATCH=1: both in one dist.batch_isend_irecv).
"""
import datetime
import logging
import os
import signal
import socket
import sys
import time

import torch
import torch.distributed as dist

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s [train] %(message)s")
log = logging.getLogger("train")

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ["LOCAL_RANK"])
local_world = int(os.environ["LOCAL_WORLD_SIZE"])
node = rank // local_world
steps = int(os.environ.get("STEPS", "20"))
pp = os.environ.get("PP", "0") == "1"
pp_batch = os.environ.get("PP_BATCH", "0") == "1"
fault = os.environ.get("FAULT", "").split(":")
kind = fault[0] if fault[0] else None
f_rank = int(fault[1]) if len(fault) > 1 else -1
f_step = int(fault[2]) if len(fault) > 2 else -1
f_arg = fault[3] if len(fault) > 3 else None


# torchrun's restart count; FAULT_ATTEMPTS=0,2 injects the fault only in those attempts
attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
f_attempts = os.environ.get("FAULT_ATTEMPTS")
if f_attempts is not None and str(attempt) not in f_attempts.split(","):
    kind = None


def hit(name, step):
    return kind == name and rank == f_rank and step == f_step


def cuda_fault(x):
    """A kernel that stores far outside x: an illegal address (sticky)."""
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def store_far(p):
            tl.store(p + (1 << 40), 1.0)

        store_far[(1,)](x)  # asynchronous: the fault shows at the next sync
    except Exception as e:  # no Triton, or no compiler for its launcher
        log.info("rank=%d no triton kernel (%s): a device-side assert instead", rank, type(e).__name__)
        torch.nn.functional.cross_entropy(torch.randn(8, 10, device=x.device),
                                          torch.full((8,), 1000, dtype=torch.long, device=x.device))


log.info("rank=%d host=%s pid=%d node=%d local_rank=%d world=%d", rank, socket.gethostname(), os.getpid(), node,
         local_rank, world)
torch.cuda.set_device(local_rank % torch.cuda.device_count())
if local_world > torch.cuda.device_count() and "NCCL_HOSTID" in os.environ:
    # more ranks than GPUs on a node (NPROC in run-job.sh): NCCL refuses two
    # ranks of one host on a GPU, so each round of GPUs is a host of its own
    # to NCCL (NET between them); host names and torchrun are unchanged
    os.environ["NCCL_HOSTID"] += "-g%d" % (local_rank // torch.cuda.device_count())
dev = torch.device("cuda", torch.cuda.current_device())
timeout = datetime.timedelta(seconds=int(os.environ.get("WATCHDOG_S", "20")))
if kind == "stall_init" and rank == f_rank:
    log.info("rank=%d loading the dataset", rank)
    time.sleep(3600)
if kind == "slow_init" and rank == f_rank:
    log.info("rank=%d loading the dataset", rank)
    time.sleep(float(f_arg or 40))
if kind == "kill_init" and rank == f_rank:
    log.info("rank=%d loading the dataset", rank)
    os.kill(os.getpid(), signal.SIGKILL)
if kind == "exception_init" and rank == f_rank:
    log.info("rank=%d loading the dataset", rank)
    raise FileNotFoundError(f"/data/shards/shard-{rank:05d}.bin: no such file")
dist.init_process_group("nccl", timeout=timeout, device_id=dev)

nodes = world // local_world
tp = None
for n in range(nodes):
    g = dist.new_group(list(range(n * local_world, (n + 1) * local_world)), group_desc=f"tp{n}", timeout=timeout)
    if n == node:
        tp = g
dp = None
for lr in range(local_world):
    g = dist.new_group(list(range(lr, world, local_world)), group_desc=f"dp{lr}", timeout=timeout)
    if lr == local_rank:
        dp = g

shard = torch.ones(65536, device=dev) * (rank + 1)
gathered = torch.empty(65536 * local_world, device=dev)
scattered = torch.empty(65536, device=dev)
buckets = [torch.ones(n, device=dev) for n in (1048576, 786432, 4096)]
bcast = torch.zeros(1024, device=dev)
act = torch.ones(32768, device=dev)
act_out = torch.ones(32768, device=dev)
# the pipeline's transfers: on the default group, or (PP_GROUP=1) on the dp
# group, whose members are the same local rank of every node
pp_group = dp if os.environ.get("PP_GROUP", "0") == "1" else None

for step in range(steps):
    t0 = time.time()
    if hit("exit0", step):
        log.info("rank=%d finished early", rank)
        sys.exit(0)
    if hit("exit1", step):
        log.error("rank=%d checkpoint directory not writable; giving up", rank)
        sys.exit(1)
    if hit("short", step):
        log.info("rank=%d out of data", rank)
        break
    if kind == "straggler" and rank == f_rank:
        time.sleep(float(f_arg or 0.4))
    if hit("kill", step):
        log.info("rank=%d step %d", rank, step)
        os.kill(os.getpid(), signal.SIGKILL)
    if kind == "kill_node" and node == f_rank // local_world and step == f_step:
        os.kill(os.getpid(), signal.SIGKILL)
    if hit("exception", step):
        raise ValueError(f"bad sample in shard {rank}: label out of range at step {step}")
    if hit("oom", step):
        huge = torch.empty(1 << 45, dtype=torch.uint8, device=dev)
    if hit("cuda_assert", step):
        logits = torch.randn(8, 10, device=dev)
        labels = torch.full((8,), 1000, dtype=torch.long, device=dev)
        torch.nn.functional.cross_entropy(logits, labels)
    if hit("cuda_fault", step):
        cuda_fault(shard)
    if hit("segv", step):
        os.kill(os.getpid(), signal.SIGSEGV)
    if hit("abort", step):
        os.abort()
    if kind == "freeze" and node == f_rank // local_world and step == f_step:
        os.kill(os.getppid(), signal.SIGSTOP)
        os.kill(os.getpid(), signal.SIGSTOP)
    if hit("gpu_hang", step):
        log.info("rank=%d launching the fused kernel", rank)
        torch.cuda._sleep(1 << 62)
    if hit("extra_barrier", step):
        dist.barrier()
    if hit("sigterm", step):
        os.kill(os.getpid(), signal.SIGTERM)
    if hit("thread_exc", step):
        import queue
        import threading
        batches = queue.Queue()

        def load_batch():
            raise ValueError(f"corrupt sample in shard {rank}: cannot decode record {step * 64}")

        threading.Thread(target=load_batch, name="loader").start()
        batches.get()
    if hit("slow_step", step):
        time.sleep(float(f_arg or 30))
    if hit("stall_tp", step):
        log.info("rank=%d waiting on the input pipeline", rank)
        time.sleep(3600)
    if hit("mismatch_op", step):
        dist.all_reduce(gathered[:65536], group=tp)
    else:
        dist.all_gather_into_tensor(gathered, shard, group=tp)
    dist.reduce_scatter_tensor(scattered, gathered, group=tp)
    if hit("stall_dp", step):
        log.info("rank=%d waiting on the input pipeline", rank)
        time.sleep(3600)
    for i, b in enumerate(buckets):
        if i == 0 and hit("mismatch_dp", step):
            dist.broadcast(b, src=local_rank, group=dp)
        elif i == 2 and hit("size", step):
            dist.all_reduce(torch.ones(int(f_arg or 8192), device=dev), group=dp)
        elif i == 2 and hit("dtype", step):
            dist.all_reduce(b.to(torch.bfloat16), group=dp)
        else:
            dist.all_reduce(b, group=dp)
    if pp and pp_batch:
        if hit("stall_pp", step):
            log.info("rank=%d waiting on the input pipeline", rank)
            time.sleep(3600)
        ops = []
        if node > 0:
            ops.append(dist.P2POp(dist.irecv, act, rank - local_world, group=pp_group))
        if node < nodes - 1 and not hit("skip_send", step):
            ops.append(dist.P2POp(dist.isend, act_out, rank + local_world, group=pp_group))
        if ops:
            for req in dist.batch_isend_irecv(ops):
                req.wait()
    elif pp:
        if node > 0:
            if hit("stall_recv", step):
                log.info("rank=%d waiting on the input pipeline", rank)
                time.sleep(3600)
            if not hit("skip_recv", step):
                dist.recv(act, src=rank - local_world, group=pp_group)
        if node < nodes - 1:
            if hit("stall_pp", step):
                log.info("rank=%d waiting on the input pipeline", rank)
                time.sleep(3600)
            if not hit("skip_send", step):
                dist.send(act, dst=rank + local_world, group=pp_group)
    if step % 10 == 0 and not hit("skip_bcast", step):
        dist.broadcast(bcast, src=0)
    torch.cuda.synchronize()
    loss = 2.0 / (step + 1) + rank * 0.01
    log.info("rank=%d step %d loss %.4f step_time %.3fs", rank, step, loss, time.time() - t0)

if kind == "stall_final" and rank == f_rank:
    log.info("rank=%d writing the checkpoint", rank)
    time.sleep(3600)
if kind == "kill_final" and rank == f_rank:
    log.info("rank=%d writing the checkpoint", rank)
    os.kill(os.getpid(), signal.SIGKILL)
dist.barrier()
torch.cuda.synchronize()
trace_dir = os.environ.get("FINAL_TRACE_DIR")
if trace_dir:
    try:
        from torch._C._distributed_c10d import _dump_nccl_trace
        with open(os.path.join(trace_dir, f"final_trace_rank_{rank}"), "wb") as f:
            f.write(_dump_nccl_trace())
    except Exception as e:  # the dump is optional
        log.info("rank=%d no final trace: %s", rank, e)
log.info("rank=%d done", rank)
dist.destroy_process_group()
