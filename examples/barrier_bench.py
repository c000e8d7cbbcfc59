"""threading.Barrier: 4 threads meet at a barrier, round after round.

A Barrier is a threading.Condition: the last thread to arrive notifies
the others, each parked on a lock of its own (a POSIX semaphore in
CPython 3.11). Each round, each thread adds to its own slot; checks the
sums; exit 1 if wrong.
Usage: python3 barrier_bench.py [ROUNDS]   (default 3000)"""
import sys
import threading

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
N = 4
b = threading.Barrier(N)
slots = [0] * N


def run(k):
    for r in range(ROUNDS):
        slots[k] += r
        b.wait()


threads = [threading.Thread(target=run, args=(k,)) for k in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
want = ROUNDS * (ROUNDS - 1) // 2
if slots != [want] * N:
    print(f"barrier_bench: {slots}, want {want} each", file=sys.stderr)
    sys.exit(1)
print(f"barrier_bench: {ROUNDS} rounds of {N} threads")
