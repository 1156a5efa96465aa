#!/usr/bin/python3
"""Write the seeds of fuzz_frame (verbNN.bin beside this file): choice
sequences for tests/fuzz/frame_driver.lua - any bytes are a valid input;
these start from frames of 5 to 9 rows, and the byte after the rows'
choices walks through the verbs.  Deterministic (seeded)."""
import os
import random

here = os.path.dirname(os.path.abspath(__file__))
r = random.Random(24)
for i in range(14):
    b = (bytes([6 + (i % 5)]) + bytes(r.randrange(256) for _ in range(40)) + bytes([i])
         + bytes(r.randrange(256) for _ in range(60)))
    with open(os.path.join(here, "verb%02d.bin" % i), "wb") as f:
        f.write(b)
