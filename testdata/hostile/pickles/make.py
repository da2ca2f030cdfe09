#!/usr/bin/env python3
"""Writes the hostile pickles that tests/unit/test_pickle_read.c feeds to the
pickle reader (src/pickle_read.c). Run once from anywhere; the outputs are
committed next to this script. Every file is written byte by byte: nothing here
pickles, unpickles or runs anything.

Each file is listed in CASES with the opcode it attacks; the expected error
messages live in the unit test.
"""
import os
import pickle
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "..", "pickles", "stall_nccl_trace_rank_2")

P2 = b"\x80\x02"  # PROTO 2


def binunicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def short_binunicode(s):
    b = s.encode()
    return b"\x8c" + bytes([len(b)]) + b


def frame(body):
    return b"\x95" + struct.pack("<Q", len(body)) + body


def sample():
    with open(SAMPLE, "rb") as f:
        return f.read()


CASES = {
    # os.system("echo pwned") the protocol-2 way: GLOBAL then REDUCE
    "global_reduce.pickle": P2 + b"cos\nsystem\n" + binunicode("echo pwned") + b"\x85R.",
    # the same with protocol 4: STACK_GLOBAL inside a FRAME
    "stack_global.pickle": b"\x80\x04"
    + frame(short_binunicode("os") + b"\x94" + short_binunicode("system") + b"\x94\x93\x94"
            + short_binunicode("echo pwned") + b"\x94\x85\x94R\x94."),
    # BUILD (would call __setstate__ / update __dict__) on a plain dict
    "build.pickle": P2 + b"}q\x00}q\x01b.",
    # INST: protocol-0 "import module, call class with the items after MARK"
    "inst.pickle": b"(S'echo pwned'\nios\nsystem\n.",
    # OBJ: call the first item after MARK with the rest
    "obj.pickle": P2 + b"(}o.",
    # PERSID: a persistent id resolved by the unpickler's persistent_load
    "persid.pickle": P2 + b"Pdb-record-17\n.",
    # BINPERSID: the same with the id on the stack
    "binpersid.pickle": P2 + binunicode("key") + b"Q.",
    # EXT1: object from the copyreg extension registry
    "ext1.pickle": P2 + b"\x82\x01.",
    # NEXT_BUFFER: protocol-5 out-of-band buffer
    "next_buffer.pickle": b"\x80\x05\x97.",
    # 100000 nested lists, as the pickler would write them (no MARKs)
    "deep_nest.pickle": P2 + b"]" * 100000 + b"a" * 99999 + b".",
    # 100000 nested MARKs
    "deep_marks.pickle": P2 + b"(" * 100000 + b"l" * 100000 + b".",
    # BINUNICODE that declares 2^31-1 bytes and brings 10
    "binunicode_huge.pickle": P2 + b"X\xff\xff\xff\x7f" + b"short body",
    # BINBYTES8 that declares 2^63 bytes
    "binbytes8_huge.pickle": b"\x80\x04\x8e" + struct.pack("<Q", 1 << 63) + b"x.",
    # a real flight-recorder dump cut in the middle (between two opcodes)
    "truncated.pickle": sample()[: len(sample()) // 2],
    # the same cut inside the 8 bytes of a LONG1 (time_created_ns at 3146)
    "truncated_mid.pickle": sample()[:3151],
    "empty.pickle": b"",
    # a log file given as a pickle
    "not_a_pickle.pickle": b"[rank2]:[E1129 23:56:01.123456 ProcessGroupNCCL.cpp:632] "
    b"[PG ID 2 PG GUID 4(dp0) Rank 1] Watchdog caught collective operation timeout\n",
    # BINGET of a memo index that no PUT stored
    "memo_get_unset.pickle": P2 + b"]q\x00h\x05.",
    # LONG_BINPUT to a far memo index (would size the memo at 2^32 slots)
    "memo_far.pickle": P2 + b"]r\xff\xff\xff\xff.",
    # SETITEMS with a key and no value for it
    "setitems_odd.pickle": P2 + b"}q\x00(" + binunicode("a") + b"K\x01" + binunicode("b") + b"u.",
    # LONG1 of 9 bytes (2**64)
    "long1_wide.pickle": P2 + b"\x8a\x09" + (1 << 64).to_bytes(9, "little", signed=True) + b".",
    # LONG4 of 100 bytes
    "long4_wide.pickle": P2 + b"\x8b" + struct.pack("<i", 100) + b"\x01" * 100 + b".",
    # STOP with two values on the stack
    "stop_multi.pickle": P2 + b"K\x01K\x02.",
    # a list appended to itself: l = []; l.append(l)
    "recursive.pickle": P2 + b"]q\x00h\x00a.",
    # an undefined opcode byte after a valid start
    "unknown_op.pickle": P2 + b"]\xff.",
}


def memo_bomb():
    """A dump whose entries' sizes are one list, referenced 50 times at each
    of 5 levels through the memo: 4 KB of pickle, 50^5 values once read."""
    out = P2 + b"}q\x00" + binunicode("entries")
    # the lists, memoized and popped
    out += b"]q\x02(" + b"".join(b"K" + bytes([i]) for i in range(50)) + b"e0"
    for level in range(3, 7):
        out += b"]q" + bytes([level]) + b"(" + (b"h" + bytes([level - 1])) * 50 + b"e0"
    out += b"]q\x01("
    for r in range(10):
        out += b"}(" + binunicode("record_id") + b"K" + bytes([r])
        out += binunicode("input_sizes") + b"h\x06" + binunicode("output_sizes") + b"h\x06u"
    out += b"es."
    return out


CASES["memo_bomb.pkl"] = memo_bomb()


def sizes_overflow():
    """A valid dump whose tensor sizes multiply past 64 bits (2^62 x 4):
    read, without a numel."""
    entry = {"record_id": 0, "pg_id": 0, "process_group": ("0", "default"), "collective_seq_id": 1,
             "p2p_seq_id": 0, "op_id": 1, "profiling_name": "nccl:all_reduce",
             "time_created_ns": 1700000000000000000, "input_sizes": [[2**62, 4]],
             "output_sizes": [[2**62, 4], [2**62, 2**62]], "input_dtypes": ["Float"],
             "output_dtypes": ["Float"], "state": "scheduled", "time_discovered_started_ns": None,
             "time_discovered_completed_ns": None, "retired": False, "timeout_ms": 600000,
             "is_p2p": False, "frames": []}
    return pickle.dumps({"version": "2.4", "rank": 0, "entries": [entry]}, protocol=2)


CASES["sizes_overflow.pkl"] = sizes_overflow()


def main():
    for name, data in sorted(CASES.items()):
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
