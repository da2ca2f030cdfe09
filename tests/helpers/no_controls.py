#!/usr/bin/env python3
"""Exits 1 (saying where) when a file holds a byte that could act on a
terminal: a C0 control other than tab and newline, DEL, a C1 control
(U+0080..U+009F) or bytes that are not UTF-8. Usage: no_controls.py FILE..."""
import sys

bad = 0
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        print('%s: byte %d is not UTF-8' % (path, e.start))
        bad = 1
        continue
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch not in '\t\n') or 0x7f <= o <= 0x9f:
            print('%s: control U+%04X at character %d' % (path, o, i))
            bad = 1
            break
sys.exit(bad)
