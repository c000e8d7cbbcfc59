"""tests/shim/channel_server.py NAME OUT READY — a report channel server for
the shim's tests (the real one is futexlab exec's, proc/report.c): listens on
the abstract AF_UNIX SOCK_SEQPACKET socket NAME and, per connection, reads
one message, then — before the 1-byte ack — waits until the sender is
blocked in recvfrom (/proc/PID/syscall: the shim waits for the ack, so
the server can still look at it); a sender that exits or dies first is
written as "GONE pid" instead (the shim did not wait). Each message is
appended to OUT as it came ("LINE pid <text>", the text without its final
newline; "NONL pid <text>" if it had none). Writes READY when listening;
runs until SIGTERM."""
import os
import signal
import socket
import struct
import sys
import time

X86_64_RECVFROM = 45


def blocked_in_recv(pid):
    """True once pid sleeps in recvfrom; False if it is gone or a zombie."""
    deadline = time.monotonic() + 10  # a hang guard, not a timing check
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return False
            with open("/proc/%d/syscall" % pid) as f:
                if f.read().split()[0] == str(X86_64_RECVFROM):
                    return True
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return False
        time.sleep(0.001)
    return False


def main():
    name, out, ready = sys.argv[1:4]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind("\0" + name)
    s.listen(64)
    open(ready, "w").close()
    while True:
        c, _ = s.accept()
        pid, _, _ = struct.unpack("3i", c.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        msg = c.recv(65536).decode("ascii", "replace")
        alive = blocked_in_recv(pid)
        with open(out, "a") as f:
            if not alive:
                f.write("GONE %d\n" % pid)
            kind = "LINE" if msg.endswith("\n") and "\n" not in msg[:-1] else "NONL"
            f.write("%s %d %s\n" % (kind, pid, msg.rstrip("\n")))
        try:
            c.send(b"\x01")
        except OSError:
            pass
        c.close()


main()
