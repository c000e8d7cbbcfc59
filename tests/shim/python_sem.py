"""tests/shim/python_sem.py — a real program from Debian's packages on the shim.

CPython 3.11 (Debian's python3.11) builds its thread locks on POSIX
semaphores (sem_init/sem_wait/sem_trywait/sem_clockwait/sem_post), and
multiprocessing's Semaphore/Lock on named ones (sem_open). This script only
uses the standard library; run under libfutexlab-preload.so it exercises both
paths of the shim. Exits 1 with a message on the first failure."""
import multiprocessing as mp
import sys
import threading
import time


def fail(msg):
    print("python_sem: FAIL", msg, file=sys.stderr)
    sys.exit(1)


def contended_lock():
    lock = threading.Lock()
    box = [0]

    def work():
        for _ in range(20000):
            with lock:
                box[0] += 1
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if box[0] != 80000:
        fail("lost increments under threading.Lock: %d" % box[0])


def timed_acquire():
    lock = threading.Lock()
    lock.acquire()
    t0 = time.monotonic()
    if lock.acquire(timeout=0.05):
        fail("acquired a held lock")
    if time.monotonic() - t0 < 0.05:
        fail("timed acquire returned early")
    threading.Timer(0.03, lock.release).start()
    if not lock.acquire(timeout=5):
        fail("not woken by a release from another thread")


def bounded_semaphore():
    sem = threading.BoundedSemaphore(2)
    inside = [0, 0]
    mu = threading.Lock()

    def work():
        for _ in range(2000):
            with sem:
                with mu:
                    inside[0] += 1
                    inside[1] = max(inside[1], inside[0])
                with mu:
                    inside[0] -= 1
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if inside[1] > 2:
        fail("more than 2 holders of Semaphore(2): %d" % inside[1])


def child(sem_in, sem_out, n):
    for _ in range(n):
        if not sem_in.acquire(timeout=5):
            sys.exit(3)
        sem_out.release()


def named_across_processes():
    ctx = mp.get_context("fork")
    a, b = ctx.Semaphore(0), ctx.Semaphore(0)
    p = ctx.Process(target=child, args=(a, b, 300))
    p.start()
    for i in range(300):
        a.release()
        if not b.acquire(timeout=5):
            fail("round %d: no answer from the child process" % i)
    p.join(10)
    if p.exitcode != 0:
        fail("child exit code %s" % p.exitcode)


contended_lock()
timed_acquire()
bounded_semaphore()
named_across_processes()
print("python_sem: all passed")
