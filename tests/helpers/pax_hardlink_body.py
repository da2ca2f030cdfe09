#!/usr/bin/env python3
"""Writes a pax tar whose hard link carries a body of its own (POSIX allows
it; libarchive reads it): job/a.log (100 lines), job/b.log, a hard link to
it with the same 100 lines as its body, job/c.log (2 lines).
Usage: pax_hardlink_body.py OUT.tar"""
import sys


def header(name, size, typeflag, link=b''):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b'0000644\0'
    h[108:116] = b'0000000\0'
    h[116:124] = b'0000000\0'
    h[124:136] = b'%011o\0' % size
    h[136:148] = b'%011o\0' % 1700000000
    h[156:157] = typeflag
    h[157:157 + len(link)] = link
    h[257:263] = b'ustar\0'
    h[263:265] = b'00'
    h[148:156] = b' ' * 8
    h[148:156] = b'%06o\0 ' % sum(h)
    return bytes(h)


def padded(data):
    return data + b'\0' * (-len(data) % 512)


def pax_record(key, value):
    s = b' %s=%s\n' % (key, value)
    n = len(s) + 2
    while len(b'%d' % n) + len(s) != n:
        n += 1
    return b'%d' % n + s


data = b''.join(b'line %d\n' % i for i in range(100))
pax = pax_record(b'size', b'%d' % len(data))
out = header(b'job/a.log', len(data), b'0') + padded(data)
out += header(b'PaxHeaders/b.log', len(pax), b'x') + padded(pax)
out += header(b'job/b.log', len(data), b'1', b'job/a.log') + padded(data)
out += header(b'job/c.log', 4, b'0') + padded(b'x\ny\n')
out += b'\0' * 1024
with open(sys.argv[1], 'wb') as f:
    f.write(out)
