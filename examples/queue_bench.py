"""queue.Queue producer/consumer: 2 producers, 2 consumers, a bounded queue.

Every queue.Queue wait is a threading.Condition wait, and every
threading.Lock in CPython 3.11 is an unnamed POSIX semaphore (sem_init,
sem_clockwait, sem_post): a full or empty queue puts threads to sleep on
them. Checks the sum of what was consumed; exit 1 if it is wrong.
Usage: python3 queue_bench.py [ITEMS]   (default 40000)"""
import queue
import sys
import threading

ITEMS = int(sys.argv[1]) if len(sys.argv) > 1 else 40000
PRODUCERS = CONSUMERS = 2
q = queue.Queue(maxsize=16)
totals = [0] * CONSUMERS


def produce(k):
    for i in range(k, ITEMS, PRODUCERS):
        q.put(i)


def consume(k):
    s = 0
    while True:
        x = q.get()
        if x is None:
            break
        s += x
    totals[k] = s


threads = [threading.Thread(target=consume, args=(k,)) for k in range(CONSUMERS)]
producers = [threading.Thread(target=produce, args=(k,)) for k in range(PRODUCERS)]
for t in threads + producers:
    t.start()
for t in producers:
    t.join()
for _ in range(CONSUMERS):
    q.put(None)
for t in threads:
    t.join()
want = ITEMS * (ITEMS - 1) // 2
if sum(totals) != want:
    print(f"queue_bench: consumed {sum(totals)}, want {want}", file=sys.stderr)
    sys.exit(1)
print(f"queue_bench: {ITEMS} items through a queue of 16, {PRODUCERS}x{CONSUMERS} threads")
