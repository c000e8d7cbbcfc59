"""Writes a synthetic raw video (YUV4MPEG2, 4:2:0) for svtav1.sh: W x H,
N frames of a moving XOR pattern, into PATH (via a temporary file and a
rename, so a half-written clip is never used).
Usage: python3 make_clip.py PATH [W H N]   (default 320 240 60)"""
import os
import sys

path = sys.argv[1]
w, h, n = (int(x) for x in sys.argv[2:5]) if len(sys.argv) > 4 else (320, 240, 60)
tmp = f"{path}.{os.getpid()}.tmp"
with open(tmp, "wb") as f:
    f.write(b"YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg\n" % (w, h))
    chroma = bytes([128]) * (w * h // 2)
    for i in range(n):
        f.write(b"FRAME\n")
        f.write(bytes(((x + 4 * i) ^ (2 * y)) & 255 for y in range(h) for x in range(w)))
        f.write(chroma)
os.replace(tmp, path)
