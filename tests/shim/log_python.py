"""tests/shim/log_python.py — Debian's python3 under the shim's log
(tests/shim/log_python.sh). Standard library only.

Makes 200 threading.Lock objects (each a sem_init in CPython 3.11) and uses
them from four threads; then three more processes:
  - a fork whose child makes a lock and leaves by sys.exit (a normal exit:
    the shim's destructor writes its line),
  - a fork whose child leaves by os._exit (no destructor: the shim's _exit
    writes its line),
  - a subprocess: python3 again, exec'd, which makes 150 locks.
Prints one line per process, "ROLE PID": main, fork-exit, fork-_exit,
subprocess. Exits 1 with a message on a failure of its own."""
import os
import subprocess
import sys
import threading


def fail(msg):
    print("log_python: FAIL", msg, file=sys.stderr)
    sys.exit(1)


def locks():
    ls = [threading.Lock() for _ in range(200)]
    count = [0]

    def work():
        for i in range(2000):
            with ls[i % 7]:
                count[0] += 1
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if count[0] != 8000:
        fail("lost increments: %d" % count[0])


def forked(leave):
    sys.stdout.flush()  # the child must not print the parent's buffer again
    pid = os.fork()
    if pid == 0:
        if leave == "exit":
            lock = threading.Lock()
            with lock:
                pass
            sys.exit(0)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        fail("the %s child: status %#x" % (leave, status))
    return pid


def main():
    print("main", os.getpid())
    locks()
    print("fork-exit", forked("exit"))
    print("fork-_exit", forked("_exit"))
    p = subprocess.run(
        [sys.executable, "-c",
         "import os, threading\n"
         "ls = [threading.Lock() for _ in range(150)]\n"
         "print(os.getpid())"],
        capture_output=True, check=True, text=True)
    print("subprocess", int(p.stdout))


main()
