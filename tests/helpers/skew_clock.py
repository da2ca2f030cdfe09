#!/usr/bin/env python3
"""skew_clock.py DIR HOST DELTA_MS: sets HOST's clock DELTA_MS ahead (behind
when negative) in a job's bundle unpacked under DIR, as if that node's clock
were off: every timestamp of the files under DIR/.../HOST/ moves (Python
logging's "2026-11-30 04:26:24,382", glog's "I1130 04:26:24.382000000",
NCCL's "[2026-11-30 04:26:24]" (to the second, rounded down), the
flight-recorder dumps' *_ns fields, rewritten as pickle protocol 2 as PyTorch
writes them). Used to make testdata/skewed/ from real jobs; not needed by
the tests."""
import os, re, sys, pickle, datetime
root, host, delta_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
D = datetime.timedelta(milliseconds=delta_ms)
py = re.compile(rb'(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3})')
sec = re.compile(rb'\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\]')
gl = re.compile(rb'([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6,9})')
def sh_py(m):
    t = datetime.datetime(*[int(x) for x in m.groups()[:6]], int(m.group(7)) * 1000) + D
    return b'%04d-%02d-%02d %02d:%02d:%02d,%03d' % (t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond // 1000)
def sh_sec(m):
    t = datetime.datetime(*[int(x) for x in m.groups()[:6]]) + D
    return b'[%04d-%02d-%02d %02d:%02d:%02d]' % (t.year, t.month, t.day, t.hour, t.minute, t.second)
def sh_gl(m):
    frac = m.group(7); n = len(frac)
    t = datetime.datetime(2026, int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)), int(frac[:6])) + D
    rest = frac[6:]
    return m.group(1) + b'%02d%02d %02d:%02d:%02d.%06d' % (t.month, t.day, t.hour, t.minute, t.second, t.microsecond) + rest
def shift_obj(o):
    if isinstance(o, dict):
        return {k: (v + int(delta_ms * 1e6) if isinstance(k, str) and k.endswith('_ns') and isinstance(v, int) else shift_obj(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [shift_obj(x) for x in o]
    return o
for dp, dn, fn in os.walk(root):
    if f'/{host}' not in dp + '/':
        continue
    for f in fn:
        p = os.path.join(dp, f)
        if '/fr/' in p + '/' or dp.endswith('/fr'):
            try:
                d = pickle.load(open(p, 'rb'))
            except Exception:
                continue
            pickle.dump(shift_obj(d), open(p, "wb"), protocol=2)
            continue
        b = open(p, 'rb').read()
        b = py.sub(sh_py, b)
        b = gl.sub(sh_gl, b)
        b = sec.sub(sh_sec, b)
        open(p, 'wb').write(b)
