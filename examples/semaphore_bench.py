"""threading.BoundedSemaphore as a token pool: 6 threads, 2 tokens.

A threading.Semaphore is a Condition over a lock; a thread that finds no
token sleeps on its own waiter lock (a POSIX semaphore in CPython 3.11).
Checks that never more than 2 threads hold a token and that every
acquisition was counted; exit 1 if not.
Usage: python3 semaphore_bench.py [ACQUIRES]   (default 6000 per thread)"""
import sys
import threading

PER = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
N, TOKENS = 6, 2
sem = threading.BoundedSemaphore(TOKENS)
guard = threading.Lock()
inside = 0
peak = 0
done = [0] * N


def run(k):
    global inside, peak
    for _ in range(PER):
        with sem:
            with guard:
                inside += 1
                peak = max(peak, inside)
            with guard:
                inside -= 1
            done[k] += 1


threads = [threading.Thread(target=run, args=(k,)) for k in range(N)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if peak > TOKENS or done != [PER] * N:
    print(f"semaphore_bench: peak {peak} (max {TOKENS}), done {done}", file=sys.stderr)
    sys.exit(1)
print(f"semaphore_bench: {N} threads x {PER} acquires of {TOKENS} tokens, peak {peak}")
