#!/usr/bin/env python3
"""serial-01-task1.py SOLUTION OUT -- 01 task1 with no thread started: every chunk squared
in turn by the calling thread.  The results are right; the method is not.  Used by
check-cheats and check-gradescope.  Exit 1 when the solution's thread loops are not found."""
import re
import sys

s = open(sys.argv[1]).read()
s2 = re.sub(r"for \(int t = 0; t < threads; t\+\+\) \{\s*int err = pthread_create\(&tid\[t\], NULL, square_chunk, &chunk\[t\]\);"
            r".*?pthread_join\(tid\[t\], NULL\);",
            "(void)tid;\n    for (int t = 0; t < threads; t++)\n        square_chunk(&chunk[t]);", s, flags=re.S)
if s2 == s:
    sys.exit("01_threads/task1.c: its thread loops were not found")
open(sys.argv[2], "w").write(s2)
