"""examples/mp_bench.py [ITEMS] — Python multiprocessing on named POSIX
semaphores: 4 worker processes (fork) share a multiprocessing.Lock (a named
semaphore: sem_open) guarding a shared counter, and a
multiprocessing.BoundedSemaphore(2) bounding how many of them are inside a
section at once (also named). Fixed work: ITEMS increments in all (default
20000), split among the workers. Checks the counter (no lost increment) and
the bound (never more than 2 inside), exits 1 when either is wrong; prints
"items/s: N" (futexlab exec --metric 'items/s: ([0-9.]+)'
--higher-is-better)."""
import multiprocessing as mp
import sys
import time

WORKERS = 4


def work(n, lock, bound, counter, inside, worst):
    for _ in range(n):
        with bound:
            with lock:
                inside.value += 1
                if inside.value > worst.value:
                    worst.value = inside.value
            with lock:
                counter.value += 1
            with lock:
                inside.value -= 1


def main():
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    ctx = mp.get_context("fork")
    lock = ctx.Lock()
    bound = ctx.BoundedSemaphore(2)
    counter = ctx.Value("l", 0, lock=False)
    inside = ctx.Value("i", 0, lock=False)
    worst = ctx.Value("i", 0, lock=False)
    share = [items // WORKERS + (i < items % WORKERS) for i in range(WORKERS)]
    t0 = time.monotonic()
    procs = [ctx.Process(target=work, args=(n, lock, bound, counter, inside, worst))
             for n in share]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    dt = time.monotonic() - t0
    if any(p.exitcode != 0 for p in procs):
        print("mp_bench: a worker failed: %s" % [p.exitcode for p in procs])
        return 1
    if counter.value != items:
        print("mp_bench: lost increments: %d of %d" % (counter.value, items))
        return 1
    if worst.value > 2:
        print("mp_bench: %d inside a BoundedSemaphore(2)" % worst.value)
        return 1
    print("items/s: %.0f" % (items / dt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
