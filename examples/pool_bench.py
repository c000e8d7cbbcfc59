"""concurrent.futures.ThreadPoolExecutor: many tiny tasks on 4 workers.

The executor's work queue (queue.SimpleQueue) and every Future's
threading.Condition park idle workers and waiting callers on CPython's
locks, which are POSIX semaphores. Checks every result; exit 1 if wrong.
Usage: python3 pool_bench.py [TASKS]   (default 20000)"""
import concurrent.futures
import sys

TASKS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000


def task(i):
    return i * i


with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
    # in batches, so callers wait on futures while workers wait for work
    total = 0
    for base in range(0, TASKS, 100):
        futs = [ex.submit(task, i) for i in range(base, min(base + 100, TASKS))]
        total += sum(f.result() for f in futs)
want = sum(i * i for i in range(TASKS))
if total != want:
    print(f"pool_bench: got {total}, want {want}", file=sys.stderr)
    sys.exit(1)
print(f"pool_bench: {TASKS} tasks on 4 workers")
