#!/usr/bin/env python3
"""Differential test vectors: toolscored against the reference tool's rules.

The reference tool (toolscore 1.8.1, Python) writes snapshot files with
json.dumps(obj, indent=2, ensure_ascii=False) + "\\n", reads them with
json.loads, names them with SHA-1 and the rule in docs/snapshots.md, and scores
with the rules in docs/scoring.md. This script runs those rules in CPython and
writes what they produce to tests/data/compat-vectors/, where
tests/test_compat.c and tests/test_compat_score.c check that the C code
produces the same bytes and numbers. It is a development tool: `make check` only reads its output and
never needs Python.

    python3 tests/compat/gen_vectors.py            # rewrite the vectors
    python3 tests/compat/gen_vectors.py --check    # fail if they would change

A soak run with many more vectors and another seed, outside the tree:

    python3 tests/compat/gen_vectors.py --scale 20 --seed 7 \\
        --out /tmp/soak/tests/data/compat-vectors
    TS_SOURCE_DIR=/tmp/soak build/tests/test_compat
    TS_SOURCE_DIR=/tmp/soak build/tests/test_compat_score

Output is deterministic (fixed seed), so a rerun on an unchanged script
gives identical files.

Record files (json.vec, names.vec, snapshots.vec) are binary-safe: each
record is a line "<tag> <byte length>\\n", then exactly that many bytes, then
"\\n". Lines starting with '#' between records are comments. scores.jsonl
holds one JSON object per line.
"""

import argparse
import hashlib
import json
import math
import os
import random
import re
import struct
import sys

SEED = 20261129
N_DOCS = 2000
N_NAMES = 2000
N_SCORES = 1000
N_SNAPSHOT_FULL = 40  # snapshot vectors stored in full; the rest as SHA-1

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "compat-vectors")

# Python's str.isspace() set, which is also what re's \s and str.strip() use.
WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]

# ---------------------------------------------------------------------------
# Characters
# ---------------------------------------------------------------------------

CONTROL = [chr(c) for c in range(0x20)] + ["\x7f"]
C1 = [chr(c) for c in range(0x80, 0xA0)]
SPECIAL = ['"', "\\", "/", "'", "`", "{", "}", "[", "]", ":", ","]
UNICODE = [
    "é", "ß", "ñ", "Ω", "ж", "ש", "ع", "中", "文", "日", "한", "ก", "€", "…",
    "\u00a0", "\u2028", "\u2029", "\u200b", "\u200d", "\ufeff", "\ufffd",
    "\uffff", "\ue000", "\u0301", "\u0308", "\u20dd", "\u0327", "\u1680",
    "\u3000", "\u0085",
]
ASTRAL = [
    "\U0001f600", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001d11e",
    "\U00010000", "\U0010ffff", "\U0001f1eb\U0001f1f7", "\U00020000",
    "\U0001f44d\U0001f3fd", "\U000e0041",
]
COMBINING = ["e\u0301", "a\u0308", "n\u0303", "\u0915\u094d\u0937", "o\u0302\u0323"]


def rand_char(rng):
    pick = rng.random()
    if pick < 0.45:
        return chr(rng.randint(0x20, 0x7E))
    if pick < 0.55:
        return rng.choice(CONTROL)
    if pick < 0.62:
        return rng.choice(SPECIAL)
    if pick < 0.75:
        return rng.choice(UNICODE)
    if pick < 0.82:
        return rng.choice(ASTRAL)
    if pick < 0.87:
        return rng.choice(COMBINING)
    if pick < 0.90:
        return rng.choice(C1)
    if pick < 0.95:
        return rng.choice(WHITESPACE)
    # Any scalar value except surrogates (not representable in UTF-8).
    while True:
        c = rng.randint(0x80, sys.maxunicode)
        if not 0xD800 <= c <= 0xDFFF:
            return chr(c)


def rand_string(rng, longest=12, allow_nul=True):
    n = rng.choice([0, 1, 1, 2, 3, 4, 6, 8, longest])
    s = "".join(rand_char(rng) for _ in range(n))
    if not allow_nul:
        s = s.replace("\x00", "")
    return s


ODD_KEYS = ["", " ", "a b", "tool", "args", "__proto__", "key\"quote", "back\\slash",
            "sl/ash", "tab\tkey", "nl\nkey", "\x01", "\x1f", "\x7f", "é", "\U0001f600",
            "\u2028", "e\u0301", "0", "-1", "null", "true", "1.5", "[]", "{}", ".", ".."]


def rand_key(rng):
    if rng.random() < 0.35:
        return rng.choice(ODD_KEYS)
    if rng.random() < 0.5:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(1, 8)))
    # json-c keys are C strings: no NUL in keys (refused by our reader).
    return rand_string(rng, allow_nul=False)


# ---------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------

INT_EDGES = [0, 1, -1, 2, 9, 10, -10, 100, 255, 256, 65535, 2**31 - 1, -2**31, 2**31,
             2**32, 2**53 - 1, 2**53, 2**53 + 1, -2**53 - 1, 10**15, 10**16, 10**17,
             2**63 - 1, -2**63, -2**63 + 1, 2**63, 2**63 + 1, 2**64 - 1, 2**64 - 2,
             10**18, 10**19, -10**18]

FLOAT_EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.1, 0.2, 0.3, 0.1 + 0.2, 1 / 3, 2 / 3, 0.5, 1.5, 100.0, 1e15,
    9999999999999998.0, 1e16, 1.0000000000000002e16, 9007199254740992.0,
    9007199254740994.0, 1e17, 1e21, 1e22, 1e23, 1.7976931348623157e308, 1e308,
    0.0001, 0.00011, 0.00009999999999999999, 1e-4, 1e-5, 0.00001, 9.999999999999999e-05,
    1e-7, 1.5e-7, 2.2250738585072014e-308, 2.225073858507201e-308, 5e-324, 1e-323,
    4.9406564584124654e-324, 1e-310, 123456789012345.67, 1234567890123456.8,
    0.30000000000000004, 2.5, -2.5, 3.141592653589793, 2.718281828459045,
    1.2345678901234567e-300, 7.120236347223045e-307, 9.5367431640625e-07, 0.1e-300,
    float(2**63), float(2**64), -float(2**63), 1.7976931348623155e308, 4.35,
]


def rand_double(rng):
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(FLOAT_EDGES)
    if pick < 0.55:
        # Random bit pattern (finite): subnormals, huge and tiny magnitudes,
        # values needing 17 significant digits.
        while True:
            bits = rng.getrandbits(64)
            d = struct.unpack("<d", struct.pack("<Q", bits))[0]
            if math.isfinite(d):
                return d
    if pick < 0.65:
        # Subnormal.
        bits = rng.getrandbits(52) | (rng.getrandbits(1) << 63)
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if pick < 0.75:
        # Powers of two and ten around the repr layout boundaries.
        e = rng.randint(-1074, 1023)
        return math.ldexp(1.0, e) * rng.choice([1, -1])
    if pick < 0.85:
        return rng.choice([1, -1]) * rng.choice([1, 2, 5, 9.99, 1.5]) * 10.0 ** rng.randint(-8, 20)
    # Decimal-ish values with few digits.
    return round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))


def rand_int(rng):
    pick = rng.random()
    if pick < 0.4:
        return rng.choice(INT_EDGES)
    if pick < 0.6:
        return rng.randint(-2**63, 2**64 - 1)
    return rng.randint(-1000, 1000)


# ---------------------------------------------------------------------------
# Values and a randomised encoder for the input side
# ---------------------------------------------------------------------------

def rand_scalar(rng):
    pick = rng.random()
    if pick < 0.35:
        return rand_string(rng)
    if pick < 0.55:
        return rand_int(rng)
    if pick < 0.8:
        return rand_double(rng)
    if pick < 0.9:
        return rng.choice([True, False])
    return None


def rand_value(rng, depth, max_depth):
    pick = rng.random()
    if depth >= max_depth or pick < 0.45:
        return rand_scalar(rng)
    if pick < 0.55:
        return rng.choice([[], {}])
    # Wide near the top, narrow (but possibly deep) further down.
    width = rng.randint(1, 3 if depth < 2 else 2)
    if pick < 0.75:
        return [rand_value(rng, depth + 1, max_depth) for _ in range(width)]
    return {rand_key(rng): rand_value(rng, depth + 1, max_depth) for _ in range(width)}


def encode_string(rng, s):
    """A JSON string literal for s, each character written in a random but
    valid way (raw, short escape, \\u escape, surrogate pair)."""
    out = ['"']
    style = rng.random()
    for ch in s:
        c = ord(ch)
        if ch == '"' or ch == "\\" or c < 0x20:
            short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                     "\b": "\\b", "\f": "\\f"}
            if ch in short and rng.random() < 0.7:
                out.append(short[ch])
            else:
                out.append(("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % c)
            continue
        if ch == "/" and rng.random() < 0.5:
            out.append("\\/")
            continue
        if style < 0.3 or rng.random() < 0.15:
            if c > 0xFFFF:
                v = c - 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
            else:
                out.append("\\u%04x" % c if rng.random() < 0.5 else "\\u%04X" % c)
            continue
        out.append(ch)
    out.append('"')
    return "".join(out)


def float_text(rng, d):
    """A JSON number text that json.loads reads as exactly d (a float)."""
    pick = rng.random()
    if pick < 0.4:
        t = repr(d)
    elif pick < 0.6:
        t = "%.17g" % d
    elif pick < 0.7:
        t = "%.25e" % d
    elif pick < 0.8:
        t = "%.17E" % d
    else:
        t = repr(d)
        if "e" in t:
            mant, exp = t.split("e")
            exp = int(exp)
            t = "%s%s%s%03d" % (mant, rng.choice("eE"), rng.choice(["", "+"]) if exp >= 0 else "-",
                                abs(exp))
    # JSON needs a fraction or exponent to make a float; "%.17g" may give "1".
    if not any(c in t for c in ".eE"):
        t += ".0"
    assert json.loads(t) == d and math.copysign(1, json.loads(t)) == math.copysign(1, d), t
    return t


def ws(rng):
    if rng.random() < 0.7:
        return ""
    return "".join(rng.choice(" \t\n\r") for _ in range(rng.randint(1, 3)))


def encode(rng, v):
    """Random valid JSON text for v (keys in order; whitespace, escapes and
    number spellings vary)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        if v == 0 and rng.random() < 0.2:
            return "-0"
        return str(v)
    if isinstance(v, float):
        return float_text(rng, v)
    if isinstance(v, str):
        return encode_string(rng, v)
    if isinstance(v, list):
        if not v:
            return "[" + ws(rng) + "]"
        return "[" + ",".join(ws(rng) + encode(rng, x) + ws(rng) for x in v) + "]"
    if not v:
        return "{" + ws(rng) + "}"
    parts = []
    for k, x in v.items():
        if rng.random() < 0.05:
            # A duplicate key before the real one: Python keeps the last
            # value at the first position.
            parts.append(ws(rng) + encode_string(rng, k) + ws(rng) + ":" + ws(rng) + "0")
        parts.append(ws(rng) + encode_string(rng, k) + ws(rng) + ":" + ws(rng) + encode(rng, x) + ws(rng))
    return "{" + ",".join(parts) + "}"


def pretty(v):
    return json.dumps(v, indent=2, ensure_ascii=False)


def compact(v):
    return json.dumps(v, ensure_ascii=False)


# ---------------------------------------------------------------------------
# Record files
# ---------------------------------------------------------------------------

class Records:
    def __init__(self):
        self.parts = []

    def comment(self, text):
        for line in text.splitlines():
            self.parts.append(("# " + line + "\n").encode("utf-8"))

    def add(self, tag, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.parts.append(b"%s %d\n" % (tag.encode("ascii"), len(data)))
        self.parts.append(data)
        self.parts.append(b"\n")

    def bytes(self):
        return b"".join(self.parts)


HEADER = "Generated by tests/compat/gen_vectors.py (CPython %d.%d.%d); do not edit." % sys.version_info[:3]


# ---------------------------------------------------------------------------
# (a) JSON documents
# ---------------------------------------------------------------------------

def fixed_documents():
    """Hand-picked documents at the edges, ahead of the random ones."""
    docs = [
        {}, [], {"": ""}, {"a": {}}, {"a": []}, [[[]]], [{}], {"k": [[], {}]},
        "".join(chr(c) for c in range(0x20)) + "\x7f",
        {"ctl": "".join(chr(c) for c in range(0x20)), "del": "\x7f", "c1": "".join(C1)},
        {"ws": "".join(WHITESPACE)}, {"q": "\"'\\/\\\\//"}, {"ls": "\u2028\u2029"},
        {"astral": "".join(ASTRAL)}, {"combining": "".join(COMBINING)},
        {"ints": INT_EDGES}, {"floats": FLOAT_EDGES},
        [1, 1.0, True, False, None, "1", -0.0, 0, 0.0],
        {"nested": {"a": {"b": {"c": {"d": {"e": {"f": {"g": [1, [2, [3, [4]]]]}}}}}}}},
        -0.0, 0.0, 1e16, 1e-5, 0.0001, 5e-324, 2**64 - 1, -2**63, "x", "", None, True,
        False, 1.7976931348623157e308, 0.1, 1e22, 123456789.123456789,
        {k: i for i, k in enumerate(ODD_KEYS)},
    ]
    deep = None
    for i in range(40):
        deep = {"level%d" % i: deep} if i % 2 else [deep, i]
    docs.append(deep)
    return docs


def gen_documents(rng):
    docs = fixed_documents()
    while len(docs) < N_DOCS:
        pick = rng.random()
        if pick < 0.1:
            docs.append(rand_scalar(rng))
        elif pick < 0.75:
            docs.append({rand_key(rng): rand_value(rng, 1, rng.choice([1, 2, 3, 3, 4, 8]))
                         for _ in range(rng.randint(0, 4))})
        else:
            docs.append([rand_value(rng, 1, rng.choice([1, 2, 3, 6])) for _ in range(rng.randint(0, 4))])
    return docs


# Texts written verbatim (number spellings and escapes at the reader's edges).
RAW_TEXTS = [
    "[1e-400, -1e-400, 2.4703282292062327e-324, 2.4703282292062328e-324]",
    "[1.7976931348623158e308, 1.7976931348623157E+308, 4.9e-324, 2.2250738585072011e-308]",
    "[0.1e1, 1E+2, 1e2, 100e-2, 1.0E-0, 0e0, -0e-0, 0.0e+0, -0, 0, -0.0]",
    "[0.1000000000000000055511151231257827021181583404541015625, 9007199254740993.0]",
    "[1.00000000000000011102230246251565404236316680908203125, 123456789012345678901234567890.0]",
    "[18446744073709551615, -9223372036854775808, 9223372036854775807, 9223372036854775808]",
    '"\\ud83d\\ude00\\uD83D\\uDE00\\ud836\\udc00\\udb76\\udfff\\udbff\\udfff\\ud800\\udc00"',
    '{"\\ud836\\ude00": 1, "\\ud876\\udc01": {"\\ud8b7\\udfff": "\\udbf7\\udc00"}}',
    '"\\u0000\\u001f\\u007f\\u0080\\u009f\\u00a0\\u2028\\u2029\\ufeff\\uffff\\/\\"\\\\"',
    '{"a": 1, "b": 2, "a": 3}', '{"k": {"x": 1}, "k": [], "j": 0, "k": "last"}',
    " \t\r\n[ 1 ,\n2\t]\r\n ", '"\\b\\f\\n\\r\\t"',
]


def write_documents(rng, docs):
    rec = Records()
    rec.comment(HEADER)
    rec.comment("Per document: input (random valid JSON text), pretty")
    rec.comment("(json.dumps(json.loads(input), indent=2, ensure_ascii=False)) and compact")
    rec.comment("(json.dumps(json.loads(input), ensure_ascii=False)).")
    inputs = []
    for doc in docs:
        text = encode(rng, doc)
        value = json.loads(text)
        # The text must read as the document (up to duplicate-key effects,
        # which only replace values with the later one).
        if not any(c in text for c in "{"):
            assert repr(value) == repr(doc), (text, doc)
        rec.add("input", text)
        rec.add("pretty", pretty(value))
        rec.add("compact", compact(value))
        inputs.append((text, value))
    for text in RAW_TEXTS:
        value = json.loads(text)
        rec.add("input", text)
        rec.add("pretty", pretty(value))
        rec.add("compact", compact(value))
        inputs.append((text, value))
    return rec, inputs


# ---------------------------------------------------------------------------
# (a') The reader: mutated texts, accepted or refused as Python does
# ---------------------------------------------------------------------------

N_MUTANTS = 1500
READER_MAX_DEPTH = 128  # TS_JSON_MAX_DEPTH

INJECTED = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "\\ud800", "\\udc00",
            "\\ud800\\u0041", "99999999999999999999", "-9223372036854775809",
            "18446744073709551616", "true", "nul", "01", "1.", ".5", "+1", "0x10", "'a'",
            "/*c*/", "//", ",", ",]", ",}", "\\u00", "\\x41", "\\a", "\ufeff", "\x00",
            "\x7f", "\u2028", "\\u0000", "\"\\u0000\":1", "-", "1e", "1e+", "-0", "-0.0",
            "1E5", "[]", "{}", "\"\"", "\t", "\x0b", "\x0c", "\xa0"]


def depth_of(v):
    if isinstance(v, list):
        return 1 + max((depth_of(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((depth_of(x) for x in v.values()), default=0)
    return 0


def has_surrogate(s):
    return any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def deliberate_difference(v):
    """Why toolscored refuses a value Python reads (json.md), or None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return None if -2**63 <= v <= 2**64 - 1 else "integer beyond 64 bits"
    if isinstance(v, float):
        return None if math.isfinite(v) else "NaN, Infinity or a double overflow"
    if isinstance(v, str):
        return "lone surrogate" if has_surrogate(v) else None
    if isinstance(v, list):
        for x in v:
            why = deliberate_difference(x)
            if why:
                return why
        return None
    for k, x in v.items():
        if "\x00" in k:
            return "\\u0000 in an object key"
        if has_surrogate(k):
            return "lone surrogate"
        why = deliberate_difference(x)
        if why:
            return why
    return None


def python_reads(data):
    """(value, None) when the reference reads data (UTF-8 file bytes) and
    toolscored is meant to as well, else (None, why)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid UTF-8"
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:
        return None, str(e)
    why = deliberate_difference(value)
    if why is None and depth_of(value) > READER_MAX_DEPTH:
        why = "nesting deeper than %d" % READER_MAX_DEPTH
    if why:
        return None, "deliberate difference: " + why
    return value, None


def mutate(rng, data):
    pick = rng.random()
    i = rng.randint(0, len(data))
    if pick < 0.2:
        return data[:i]
    if pick < 0.35 and data:
        i = min(i, len(data) - 1)
        return data[:i] + data[i + 1:]
    if pick < 0.55:
        junk = rng.choice(INJECTED).encode("utf-8")
        return data[:i] + junk + data[i:]
    if pick < 0.7 and data:
        i = min(i, len(data) - 1)
        return data[:i] + bytes([rng.choice(b'"{}[],:\\ 0-1eE.+tfn\x00\x01\x7f\xff\xc0\xed\x80')]) + data[i + 1:]
    if pick < 0.8:
        j = rng.randint(i, len(data))
        return data[:j] + data[i:j] + data[j:]
    if pick < 0.9 and len(data) > 1:
        i = min(i, len(data) - 2)
        return data[:i] + data[i + 1:i + 2] + data[i:i + 1] + data[i + 2:]
    if rng.random() < 0.3:
        return b"[" * rng.choice([127, 128, 129]) + data + b"]" * rng.choice([0, 127, 128, 129])
    return b"[" + data + b"]" * rng.choice([0, 1, 2])


def write_reader(rng, inputs):
    rec = Records()
    rec.comment(HEADER)
    rec.comment("Per text: input (mutated from a json.vec document), then compact")
    rec.comment("(json.dumps(json.loads(input), ensure_ascii=False)) when Python reads it")
    rec.comment("and toolscored is meant to, or refused (why, for the reader of a failure).")
    seeds = [text.encode("utf-8") for text, _ in inputs if len(text.encode("utf-8")) <= 90]
    seen = set()
    accepted = 0
    while len(seen) < N_MUTANTS:
        data = rng.choice(seeds)
        for _ in range(rng.choice([1, 1, 2, 3])):
            data = mutate(rng, data)
        if data in seen or len(data) > 1200:
            continue
        seen.add(data)
        value, why = python_reads(data)
        rec.add("input", data)
        if why is None:
            rec.add("compact", compact(value))
            accepted += 1
        else:
            rec.add("refused", why)
    return rec, accepted


# ---------------------------------------------------------------------------
# repr(): which characters Python escapes (str.isprintable)
# ---------------------------------------------------------------------------

def write_printable():
    """Ranges of assigned code points (surrogates left out) with P when
    str.isprintable() is true (repr() writes them as they are), N when repr()
    escapes them. Unassigned code points depend on the Unicode version."""
    import unicodedata
    ranges = []
    for cp in range(sys.maxunicode + 1):
        if unicodedata.category(chr(cp)) in ("Cn", "Cs"):
            continue
        printable = chr(cp).isprintable()
        if ranges and ranges[-1][1] == cp - 1 and ranges[-1][2] == printable:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp, printable])
    lines = ["# " + HEADER, "# Unicode %s: <first> <last> P (printed) or N (escaped by repr)"
             % unicodedata.unidata_version]
    lines += ["%x %x %s" % (a, b, "P" if p else "N") for a, b, p in ranges]
    return ("\n".join(lines) + "\n").encode("ascii")


N_REPR = 500


def all_assigned(v):
    """True when every string in v (keys too) holds only assigned code
    points, whose repr() does not depend on the Unicode version."""
    import unicodedata
    if isinstance(v, str):
        return all(unicodedata.category(c) not in ("Cn", "Cs") for c in v)
    if isinstance(v, list):
        return all(all_assigned(x) for x in v)
    if isinstance(v, dict):
        return all(all_assigned(k) and all_assigned(x) for k, x in v.items())
    return True


def write_repr(inputs):
    rec = Records()
    rec.comment(HEADER)
    rec.comment("Per value: doc (index of a json.vec document) and repr (Python's")
    rec.comment("repr() of json.loads of it). Only documents whose strings hold")
    rec.comment("assigned code points only.")
    count = 0
    for index, (_, value) in enumerate(inputs):
        if count == N_REPR:
            break
        if not all_assigned(value):
            continue
        rec.add("doc", str(index))
        rec.add("repr", repr(value))
        count += 1
    return rec, count


# ---------------------------------------------------------------------------
# (b) Snapshot file names (docs/snapshots.md, "Store and file names")
# ---------------------------------------------------------------------------

STEM_REPLACED = re.compile(r'[/\\:\[\]<>|*?"\s]')


def snapshot_filename(name):
    stem = name.replace("::", "__")
    stem = STEM_REPLACED.sub("__", stem)
    stem = stem.strip(".")
    if not stem:
        stem = "snapshot"
    stem = stem[:100]
    return "%s-%s.json" % (stem, hashlib.sha1(name.encode("utf-8")).hexdigest()[:8])


def name_char(rng):
    pick = rng.random()
    if pick < 0.5:
        return rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    if pick < 0.62:
        return rng.choice('/\\:[]<>|*?".,;=+()@#$%&!~^`\'{}')
    if pick < 0.72:
        return rng.choice(WHITESPACE)
    if pick < 0.8:
        return rng.choice([".", "..", "::", ":::"])
    return rand_char(rng).replace("\x00", "")


def rand_name(rng):
    pick = rng.random()
    if pick < 0.25:
        module = rng.choice(["tests/test_agent.py", "tests/unit/test_flights.py",
                             "test_x.py", "pkg/tests/test_é.py", "tests\\win\\test_a.py"])
        test = rng.choice(["test_booking", "test_search", "TestAgent::test_call",
                           "test_ü", "test_\U0001f600"])
        name = module + "::" + test
        if rng.random() < 0.6:
            params = [rng.choice(["a", "b-1", "1.5", "x/y", "NYC", "été", "", " ", "a b",
                                  "[nested]", "\u3000", "\U0001f680", "../..", "::", "None",
                                  "True", "0-1"]) for _ in range(rng.randint(1, 3))]
            name += "[" + "-".join(params) + "]"
        if rng.random() < 0.2:
            name += "-%d" % rng.randint(2, 5)
        return name
    if pick < 0.35:
        return rng.choice(["..", ".", "...", "../../evil", "../..", "/etc/passwd", "./x", "x/.",
                           ".hidden", "trailing.", ". .", " ", "\u3000", "\t\n", "::", ":",
                           "..\u2028..", ".\u00a0.", "\\\\server\\share", "C:\\x", "a" * 100,
                           "\u00e9" * 101, "....x....", "x" + "." * 120])
    if pick < 0.43:
        # Long names with multi-byte characters around the 100-code-point cut.
        prefix_len = rng.randint(90, 105)
        prefix = "".join(rng.choice("abc.-_") for _ in range(prefix_len))
        tail = "".join(rng.choice(["é", "中", "\U0001f600", "e\u0301", "/", " ", "::", ".",
                                   "\u2003", "x"]) for _ in range(rng.randint(1, 12)))
        return rng.choice(["", ".", "..", " "]) + prefix + tail
    if pick < 0.47:
        return "".join(rng.choice(["é", "中", "\U0001f600", "\U0010ffff", "\u0301", "ß", " ",
                                   "/"]) for _ in range(rng.randint(95, 130)))
    n = rng.randint(1, 40)
    name = "".join(name_char(rng) for _ in range(n))
    return name if name else "x"


def write_names(rng):
    rec = Records()
    rec.comment(HEADER)
    rec.comment("Per name: name (UTF-8) and file (the reference's file name for it).")
    names = []
    seen = set()
    for ch in WHITESPACE:
        for name in ("a" + ch + "b", ch, "." + ch + ".", ch * 3 + "x"):
            names.append(name)
    while len(names) < N_NAMES:
        name = rand_name(rng)
        if name in seen or "\x00" in name or not name or len(name.encode("utf-8")) > 4096:
            continue
        seen.add(name)
        names.append(name)
    for name in names:
        rec.add("name", name)
        rec.add("file", snapshot_filename(name))
    return rec, names


# ---------------------------------------------------------------------------
# (3) Snapshot files built from the documents
# ---------------------------------------------------------------------------

def rand_timestamp(rng):
    return "%04d-%02d-%02dT%02d:%02d:%02d.%06d+00:00" % (
        rng.randint(2024, 2030), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
        rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999))


def write_snapshots(rng, inputs, names):
    rec = Records()
    rec.comment(HEADER)
    rec.comment("Per snapshot: snapshot (tab-separated: created_at, updated_at,")
    rec.comment("toolscore_version, approved, source, and the comma-separated indexes of")
    rec.comment("the documents in json.vec that are the args of its calls, one call each),")
    rec.comment("one tool per call, name, filename (the reference's file name for it),")
    rec.comment("then either file (the whole file json.dumps")
    rec.comment("writes) or sha1 ('<40 hex> <length>' of that file).")
    objects = [i for i, (_, value) in enumerate(inputs) if isinstance(value, dict)]
    used_names = set()
    count = 0
    while objects:
        take = rng.randint(1, 4)
        chosen, objects = objects[:take], objects[take:]
        tools = [rng.choice(["search", "book_flight", "поиск", "\U0001f50d", "a/b", "t\"q",
                             "tool with spaces", "x\u2028y"]) for _ in chosen]
        name = names[chosen[0] % len(names)]
        if len(name.encode("utf-8")) > 60 or name in used_names:
            name = "tests/test_snap.py::test_%d[%s]" % (chosen[0], rng.choice(["a", "é", "\U0001f600", "x y"]))
        snap = {
            "schema_version": 1,
            "name": name,
            "created_at": rand_timestamp(rng),
            "updated_at": rand_timestamp(rng),
            "toolscore_version": rng.choice(["1.8.1", "0.1.0", "2.0.0rc1"]),
            "approved": rng.random() < 0.5,
            "source": rng.choice(["pytest", "trace"]),
            "calls": [{"tool": t, "args": inputs[i][1]} for t, i in zip(tools, chosen)],
        }
        text = json.dumps(snap, indent=2, ensure_ascii=False) + "\n"
        data = text.encode("utf-8")
        rec.add("snapshot", "\t".join([snap["created_at"], snap["updated_at"],
                                       snap["toolscore_version"],
                                       "true" if snap["approved"] else "false", snap["source"],
                                       ",".join(str(i) for i in chosen)]))
        used_names.add(name)
        for t in tools:
            rec.add("tool", t)
        rec.add("name", name)
        rec.add("filename", snapshot_filename(name))
        if count < N_SNAPSHOT_FULL:
            rec.add("file", data)
        else:
            rec.add("sha1", "%s %d" % (hashlib.sha1(data).hexdigest(), len(data)))
        count += 1
    return rec, count


# ---------------------------------------------------------------------------
# (c) Scoring: a transcription of docs/scoring.md
# ---------------------------------------------------------------------------

def is_number(v):
    return isinstance(v, (bool, int, float))


def lenient_deep_equal(a, b):
    """Rule 1: numbers by value across int/float/bool, objects as key sets
    with deep-equal values, arrays element by element, strings exact, null
    only equals null."""
    if is_number(a) and is_number(b):
        return a == b  # Python compares int and float exactly
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(lenient_deep_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(lenient_deep_equal(a[k], b[k]) for k in a)
    return False


def strict_equal(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return a == b


def values_equal(expected, actual, strict):
    """Argument value comparison (top level: trimming applies)."""
    if strict:
        return strict_equal(expected, actual)
    if lenient_deep_equal(expected, actual):
        return True
    if is_number(expected) and is_number(actual):
        # A top-level number: the reference compares float(e) == float(a),
        # so 2**53 + 1 equals 2**53 here (never inside containers).
        return float(expected) == float(actual)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip() == actual.strip()
    return False


def levenshtein(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[len(b)]


DEFAULT_WEIGHTS = {"selection_accuracy": 0.4, "argument_f1": 0.3, "sequence_accuracy": 0.2,
                   "redundant_rate": 0.1}


def resolve_weights(given):
    if given is None:
        return dict(DEFAULT_WEIGHTS)
    w = dict(DEFAULT_WEIGHTS)
    for k, v in given.items():
        if k not in w:
            raise ValueError("unknown weight %r" % k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError("bad weight %r" % k)
        w[k] = v
    total = sum(w.values())
    if total == 0:
        raise ValueError("weights sum to 0")
    return {k: v / total for k, v in w.items()}


def validate_calls(calls):
    if not isinstance(calls, list):
        raise ValueError("not a list")
    for i, c in enumerate(calls):
        if not isinstance(c, dict):
            raise ValueError("item at index %d is not an object" % i)
        if not isinstance(c.get("tool"), str) or not c["tool"]:
            raise ValueError("item at index %d is missing 'tool'" % i)


def score(expected, actual, weights=None, strict=False, min_score=1.0):
    validate_calls(expected)
    validate_calls(actual)
    if not 0 <= min_score <= 1:
        raise ValueError("min_score")
    w = resolve_weights(weights)
    G, T = expected, actual
    g_names = [c["tool"] for c in G]
    t_names = [c["tool"] for c in T]
    Gs, Ts = set(g_names), set(t_names)
    r = {}

    # 1. invocation accuracy
    if not G and not T:
        r["invocation_accuracy"] = 1.0
    elif not G or not T:
        r["invocation_accuracy"] = 0.0
    else:
        correct = len(Gs & Ts)
        penalty = len(Ts - Gs) + len(Gs - Ts)
        r["invocation_accuracy"] = max(0.0, min(1.0, (correct - 0.5 * penalty) / len(Gs)))

    # 2. selection accuracy
    if not T:
        r["selection_accuracy"] = 1.0 if not G else 0.0
    elif not G:
        r["selection_accuracy"] = 0.0
    else:
        r["selection_accuracy"] = sum(1 for t in t_names if t in Gs) / len(T)

    # 3. sequence
    d = levenshtein(g_names, t_names)
    r["edit_distance"] = float(d)
    r["normalized_distance"] = d / max(len(G), len(T), 1)
    r["sequence_accuracy"] = 1 - r["normalized_distance"]

    # 4. arguments
    if not G and not T:
        p = rc = f1 = 1.0  # deliberate difference 1
    elif not G or not T:
        p = rc = f1 = 0.0
    else:
        n_correct = n_expected = n_actual = 0
        vacuous = 0
        for i, g in enumerate(G):
            partner = None
            for j in range(i, len(T)):
                if T[j]["tool"] == g["tool"]:
                    partner = T[j]
                    break
            g_args = g.get("args")
            if g_args is None:
                if partner is not None:
                    vacuous += 1
                continue
            if partner is None:
                n_expected += len(g_args)
                continue
            t_args = partner.get("args")
            if t_args is None:
                t_args = {}
            n_expected += len(g_args)
            n_actual += len(t_args)
            n_correct += sum(1 for k, v in g_args.items()
                             if k in t_args and values_equal(v, t_args[k], strict))
            if not g_args and not t_args:
                vacuous += 1
        if n_expected == 0 and n_actual == 0 and vacuous > 0:
            p = rc = f1 = 1.0
        else:
            p = n_correct / n_actual if n_actual else 0.0
            rc = n_correct / n_expected if n_expected else 0.0
            f1 = 2 * p * rc / (p + rc) if p + rc > 0 else 0.0
    r["argument_precision"] = p
    r["argument_recall"] = rc
    r["argument_f1"] = f1

    # 5. efficiency
    redundant = sum(max(0, t_names.count(name) - g_names.count(name)) for name in Ts)
    r["redundant_count"] = redundant
    r["total_calls"] = len(T)
    r["redundant_rate"] = redundant / len(T) if T else 0.0

    # 6. tool correctness
    if not G:
        r["tool_correctness"] = 1.0 if not T else 0.0
    else:
        r["tool_correctness"] = len(Gs & Ts) / len(Gs)
    r["expected_tools"] = sorted(Gs)
    r["called_tools"] = sorted(Ts)
    r["missing_tools"] = sorted(Gs - Ts)
    r["extra_tools"] = sorted(Ts - Gs)

    # 7. trajectory
    if not G:
        r["step_match_rate"] = r["trajectory_accuracy"] = 1.0 if not T else 0.0
        r["path_efficiency"] = 1.0
    elif not T:
        r["step_match_rate"] = r["trajectory_accuracy"] = r["path_efficiency"] = 0.0
    else:
        matched = 0
        for k in range(min(len(G), len(T))):
            g, t = G[k], T[k]
            if g["tool"] != t["tool"]:
                continue
            g_args = g.get("args")
            if g_args is None:
                matched += 1
                continue
            t_args = t.get("args") or {}
            if all(key in t_args and lenient_deep_equal(v, t_args[key]) for key, v in g_args.items()):
                matched += 1
        r["step_match_rate"] = matched / len(G)
        r["path_efficiency"] = len(G) / len(T) if len(T) > len(G) else 1.0
        r["trajectory_accuracy"] = r["step_match_rate"] * r["path_efficiency"]

    s = (w["selection_accuracy"] * r["selection_accuracy"] + w["argument_f1"] * r["argument_f1"]
         + w["sequence_accuracy"] * r["sequence_accuracy"]
         + w["redundant_rate"] * (1 - r["redundant_rate"]))
    r["score"] = s
    r["grade"] = "A" if s >= 0.9 else "B" if s >= 0.8 else "C" if s >= 0.7 else "D" if s >= 0.6 else "F"
    r["passed"] = s >= max(0, min_score - 1e-9)
    r["min_score"] = min_score
    return r


TOOLS = ["search", "book", "Search", "a", "b", "c", "поиск", "\U0001f50d", "é", "e\u0301",
         "tool with space", "z" * 3, "\ufffd", "\ue000", "a\x00b", " search"]
ARG_KEYS = ["q", "x", "limit", "page", "Q", "dest", "é", "nested"]
WS_AROUND = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\u2028", "\u2003", "\x1c", "\u0085",
             "\u200b", "\ufeff", "\u180e"]  # the last three are NOT whitespace in Python


def rand_arg_value(rng):
    pick = rng.random()
    if pick < 0.25:
        return rng.choice(["NYC", "LA", "x", "", "1", "true", "é", "e\u0301", "\U0001f600"])
    if pick < 0.4:
        base = rng.choice(["NYC", "x", "", "a b"])
        return rng.choice(WS_AROUND) * rng.randint(0, 2) + base + rng.choice(WS_AROUND) * rng.randint(0, 2)
    if pick < 0.6:
        return rng.choice([0, 1, 2, -1, 1.0, 2.0, 0.0, -0.0, 1.5, True, False, 2**53, 2**53 + 1,
                           float(2**53), 2**63 - 1, float(2**63), 2**63, 2**64 - 1, float(2**64),
                           0.1, 0.30000000000000004, 1e-300, None])
    if pick < 0.75:
        return [rng.choice([1, 1.0, True, "x", " x", None]) for _ in range(rng.randint(0, 3))]
    if pick < 0.9:
        return {rng.choice(ARG_KEYS): rng.choice([1, 1.0, True, "x", " x", None, [], {}])
                for _ in range(rng.randint(0, 3))}
    return rand_scalar(rng)


def perturb(rng, v):
    """A value likely to compare equal or nearly equal to v."""
    pick = rng.random()
    if pick < 0.4:
        return v
    if isinstance(v, bool):
        return rng.choice([int(v), float(v), not v])
    if isinstance(v, int):
        # json-c keeps integers in [-2**63, 2**64 - 1]; beyond is refused.
        return rng.choice([float(v), v + 1 if v < 2**64 - 1 else v - 1,
                           bool(v) if v in (0, 1) else v, str(v)])
    if isinstance(v, float):
        double = v * 2 if abs(v) < 1e308 else v / 2  # stays finite
        return rng.choice([int(v) if v.is_integer() and abs(v) < 2**64 else v, double, -v])
    if isinstance(v, str):
        return rng.choice(WS_AROUND) + v + rng.choice(["", " ", "\u3000"])
    if isinstance(v, list):
        return [perturb(rng, x) for x in v]
    if isinstance(v, dict):
        return {k: perturb(rng, x) for k, x in v.items()}
    return rng.choice([None, 0, "", {}])


def rand_args(rng):
    return {rng.choice(ARG_KEYS): rand_arg_value(rng) for _ in range(rng.randint(0, 3))}


def rand_call(rng, tools, expected_side):
    call = {"tool": rng.choice(tools)}
    pick = rng.random()
    if pick < 0.15:
        pass  # args absent
    elif pick < 0.25:
        call["args"] = None
    elif pick < 0.35:
        call["args"] = {}
    else:
        call["args"] = rand_args(rng)
    if not expected_side and rng.random() < 0.1:
        call["id"] = "call_%d" % rng.randint(0, 99)
    return call


def derive_actual(rng, expected, tools):
    """Actual calls near the expected ones: same, perturbed, reordered,
    repeated, dropped or extra."""
    actual = []
    for c in expected:
        pick = rng.random()
        if pick < 0.1:
            continue
        new = {"tool": c["tool"] if rng.random() < 0.85 else rng.choice(tools)}
        args = c.get("args")
        if args is not None and rng.random() < 0.9:
            new["args"] = {k: perturb(rng, v) for k, v in args.items()}
            if rng.random() < 0.2:
                new["args"][rng.choice(ARG_KEYS)] = rand_arg_value(rng)
        elif rng.random() < 0.5:
            new["args"] = rand_args(rng)
        actual.append(new)
        if rng.random() < 0.1:
            actual.append(dict(new))
    if rng.random() < 0.2:
        actual.append(rand_call(rng, tools, False))
    if rng.random() < 0.2 and len(actual) > 1:
        i = rng.randrange(len(actual) - 1)
        actual[i], actual[i + 1] = actual[i + 1], actual[i]
    return actual


def rand_weights(rng):
    pick = rng.random()
    if pick < 0.6:
        return None
    if pick < 0.7:
        return {}
    if pick < 0.8:
        return dict(DEFAULT_WEIGHTS)
    w = {}
    for k in DEFAULT_WEIGHTS:
        if rng.random() < 0.6:
            w[k] = rng.choice([0, 1, 2, 0.5, 0.25, 0.1, 3.7, rng.random(), 10])
    if w and sum(w.values()) == 0 and len(w) == 4:
        w["argument_f1"] = 1
    return w


def score_case(rng, index):
    tools = rng.sample(TOOLS, rng.randint(1, 5))
    n = rng.choice([0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 5, 7, 10])
    expected = [rand_call(rng, tools, True) for _ in range(n)]
    if rng.random() < 0.7:
        actual = derive_actual(rng, expected, tools)
    else:
        actual = [rand_call(rng, tools, False) for _ in range(rng.choice([0, 1, 2, 3, 4, 6]))]
    min_score = rng.choice([1.0, 1.0, 0.0, 0.9, 0.8, 0.7, 0.6, 0.5, round(rng.random(), 3)])
    return {"expected": expected, "actual": actual, "weights": rand_weights(rng),
            "strict": rng.random() < 0.3, "min_score": min_score}


def fixed_score_cases():
    """The worked examples of docs/scoring.md and the edges around them."""
    def call(tool, args=None, absent=False):
        c = {"tool": tool}
        if not absent:
            c["args"] = args
        return c
    cases = [
        ([call("search", {"q": "test"})], [call("search", {"q": "test"})], None, False),
        ([call("a", {"x": 1})], [call("a", {"x": 2})], None, False),
        ([call("a", {"x": 1})], [call("a", {"x": 2})],
         {"selection_accuracy": 1, "argument_f1": 0, "sequence_accuracy": 0, "redundant_rate": 0}, False),
        ([call("t", {"x": 1})], [call("t", {"x": 1.0})], None, False),
        ([call("t", {"x": 1})], [call("t", {"x": 1.0})], None, True),
        ([call(t, absent=True) for t in "ABC"], [call(t, absent=True) for t in "BAC"], None, False),
        ([call("search", absent=True)], [call("search", {"q": "x"})], None, False),
        ([call("search", {})], [call("search", {"q": "x"})], None, False),
        ([], [], None, False), ([], [call("a", {})], None, False), ([call("a", {})], [], None, False),
        ([call("a", {})], [call("a", absent=True)], None, False),
        ([call("a", {})], [call("a", None)], None, False),
        ([call("a", None)], [call("b", {})], None, False),
        ([call("a", {"s": "x"})], [call("a", {"s": " x\u3000"})], None, False),
        ([call("a", {"s": "x"})], [call("a", {"s": " x\u3000"})], None, True),
        ([call("a", {"s": ["x"]})], [call("a", {"s": [" x"]})], None, False),
        ([call("a", {"s": "x"})], [call("a", {"s": "\u200bx"})], None, False),
        ([call("a", {"n": True})], [call("a", {"n": 1})], None, False),
        ([call("a", {"n": True})], [call("a", {"n": 1})], None, True),
        ([call("a", {"n": 2**53 + 1})], [call("a", {"n": float(2**53)})], None, False),
        ([call("a", {"n": 2**64 - 1})], [call("a", {"n": float(2**64)})], None, False),
        ([call("a", {"n": 2**63})], [call("a", {"n": float(2**63)})], None, False),
        ([call("a", {"n": 2**53 + 1})], [call("a", {"n": 2**53})], None, False),
        ([call("a", {"n": 2**53 + 1})], [call("a", {"n": 2**53})], None, True),
        ([call("a", {"n": 2**64 - 1})], [call("a", {"n": 2**64 - 2})], None, False),
        ([call("a", {"n": 2**63 - 1})], [call("a", {"n": 2**63})], None, False),
        ([call("a", {"n": -2**63})], [call("a", {"n": -2**63 + 1})], None, False),
        ([call("a", {"n": [2**53 + 1]})], [call("a", {"n": [2**53]})], None, False),
        ([call("a", {"n": {"m": 2**64 - 1}})], [call("a", {"n": {"m": 2**64 - 2}})], None, False),
        ([call("a", {"n": "1"})], [call("a", {"n": 1})], None, False),
        ([call("a", {"n": None})], [call("a", {"n": 0})], None, False),
        ([call("a", {"x": 1}), call("a", {"x": 1})], [call("a", {"x": 1})], None, False),
        ([call("b", {"x": 1}), call("a", {"x": 1})], [call("a", {"x": 1}), call("b", {"x": 1})], None, False),
        ([call("a", {"x": 1})] * 3, [call("a", {"x": 1})] * 5, None, False),
    ]
    # Scores exactly on the grade boundaries: selection k/n with all weight
    # on selection.
    only_selection = {"selection_accuracy": 1, "argument_f1": 0, "sequence_accuracy": 0,
                      "redundant_rate": 0}
    for good, total in [(9, 10), (4, 5), (7, 10), (3, 5), (6, 10), (8, 10), (27, 30), (1, 1)]:
        actual = [call("a", {})] * good + [call("b", {})] * (total - good)
        cases.append(([call("a", {})], actual, only_selection, False))
    return [{"expected": e, "actual": a, "weights": w, "strict": s, "min_score": 1.0}
            for e, a, w, s in cases]


# The order of the "result" array in scores.jsonl.
RESULT_KEYS = ["score", "grade", "passed", "invocation_accuracy", "selection_accuracy",
               "argument_precision", "argument_recall", "argument_f1", "edit_distance",
               "normalized_distance", "sequence_accuracy", "redundant_count", "total_calls",
               "redundant_rate", "tool_correctness", "trajectory_accuracy", "step_match_rate",
               "path_efficiency", "expected_tools", "called_tools", "missing_tools",
               "extra_tools"]


def near_threshold(rng, case):
    """min_score within a few 1e-9 of the case's own score: the threshold's
    epsilon decides."""
    s = score(case["expected"], case["actual"], case["weights"], case["strict"])["score"]
    m = s + rng.choice([0.0, 5e-10, -5e-10, 1e-9, -1e-9, 9.99e-10, 1.01e-9, 2e-9, -2e-9])
    case["min_score"] = min(1.0, max(0.0, m))
    return case


# Inputs docs/scoring.md refuses (no score): the C code must refuse them too.
ERROR_CASES = [
    ({"tool": "a"}, [], None, 1.0),
    (["a"], [], None, 1.0),
    ([{"tool": "a"}, 7], [], None, 1.0),
    ([{"args": {}}], [], None, 1.0),
    ([{"tool": ""}], [], None, 1.0),
    ([{"tool": 5}], [], None, 1.0),
    ([{"tool": None}], [], None, 1.0),
    ([{"tool": "a"}], [], {"bogus": 1}, 1.0),
    ([{"tool": "a"}], [], {"argument_f1": -1}, 1.0),
    ([{"tool": "a"}], [], {"argument_f1": -0.0001, "selection_accuracy": 1}, 1.0),
    ([{"tool": "a"}], [], {"selection_accuracy": 0, "argument_f1": 0, "sequence_accuracy": 0,
                           "redundant_rate": 0}, 1.0),
    ([{"tool": "a"}], [], {"argument_f1": "1"}, 1.0),
    ([{"tool": "a"}], [], None, 1.5),
    ([{"tool": "a"}], [], None, -0.1),
]


def write_scores(rng):
    lines = []
    for expected, actual, weights, min_score in ERROR_CASES:
        try:
            score(expected, actual, weights, False, min_score)
        except ValueError as e:
            why = str(e)
        else:
            raise AssertionError("not refused: %r" % ((expected, weights, min_score),))
        lines.append(json.dumps({"expected": expected, "actual": actual, "weights": weights,
                                 "strict": False, "min_score": min_score, "result": None,
                                 "error": why}, ensure_ascii=False, separators=(",", ":")))
    cases = fixed_score_cases()
    while len(cases) < N_SCORES:
        case = score_case(rng, len(cases))
        if rng.random() < 0.15:
            case = near_threshold(rng, case)
        cases.append(case)
    for case in cases:
        result = score(case["expected"], case["actual"], case["weights"], case["strict"],
                       case["min_score"])
        case = dict(case)
        case["result"] = [result[k] for k in RESULT_KEYS]
        lines.append(json.dumps(case, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8"), len(lines)


# ---------------------------------------------------------------------------
# Self-checks of the transcription against docs/scoring.md's worked examples
# ---------------------------------------------------------------------------

def self_check():
    s = score([{"tool": "search", "args": {"q": "test"}}], [{"tool": "search", "args": {"q": "test"}}])
    assert s["score"] == 0.9999999999999999, s["score"]
    s = score([{"tool": "a", "args": {"x": 1}}], [{"tool": "a", "args": {"x": 2}}],
              {"selection_accuracy": 1, "argument_f1": 0, "sequence_accuracy": 0, "redundant_rate": 0})
    assert s["score"] == 1.0
    s = score([{"tool": t} for t in "ABC"], [{"tool": t} for t in "BAC"])
    assert s["score"] == 0.8666666666666666 and s["edit_distance"] == 2.0
    s = score([{"tool": "search", "args": {}}], [{"tool": "search", "args": {"q": "x"}}])
    assert s["argument_f1"] == 0.0 and abs(s["score"] - 0.7) < 1e-12
    s = score([{"tool": "t", "args": {"x": 1}}], [{"tool": "t", "args": {"x": 1.0}}], strict=True)
    assert s["argument_f1"] == 0.0
    s = score([], [])
    assert s["argument_f1"] == 1.0 and s["passed"]
    s = score([{"tool": "a", "args": {"n": 2**53 + 1}}], [{"tool": "a", "args": {"n": 2**53}}])
    assert s["argument_f1"] == 1.0 and s["step_match_rate"] == 0.0
    s = score([{"tool": "a", "args": {"n": [2**64 - 1]}}], [{"tool": "a", "args": {"n": [2**64 - 2]}}])
    assert s["argument_f1"] == 0.0
    assert values_equal(2**64 - 1, 2**64 - 2, False) and not values_equal(2**64 - 1, 2**64 - 2, True)
    for a, b in [(1, 1.0), (True, 1), ([1, {"a": 2}], [1.0, {"a": 2.0}]), ("x", "x"), (None, None)]:
        assert lenient_deep_equal(a, b) == (a == b)
    for a, b in [(1, "1"), (None, 0), ([1], [1, 2]), ({"a": 1}, {"a": 1, "b": 2}), (False, None)]:
        assert lenient_deep_equal(a, b) == (a == b) == False
    assert re.sub(r"\s", "", "".join(WHITESPACE)) == ""
    assert snapshot_filename("tests/test_agent.py::test_booking") == \
        "tests__test_agent.py__test_booking-5befce50.json"
    assert snapshot_filename("../../evil") == "__..__evil-1361ca8c.json"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the files on disk instead of writing")
    parser.add_argument("--out", default=OUT)
    parser.add_argument("--scale", type=int, default=1,
                        help="N times as many vectors (a soak run into --out; not committed)")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    global N_DOCS, N_NAMES, N_SCORES, N_MUTANTS
    N_DOCS, N_NAMES, N_SCORES, N_MUTANTS = (n * args.scale for n in
                                            (N_DOCS, N_NAMES, N_SCORES, N_MUTANTS))
    self_check()
    rng = random.Random(args.seed)
    docs = gen_documents(random.Random(rng.getrandbits(64)))
    doc_rec, inputs = write_documents(random.Random(rng.getrandbits(64)), docs)
    name_rec, names = write_names(random.Random(rng.getrandbits(64)))
    snap_rec, n_snap = write_snapshots(random.Random(rng.getrandbits(64)), inputs, names)
    scores, n_scores = write_scores(random.Random(rng.getrandbits(64)))
    reader_rec, n_accepted = write_reader(random.Random(rng.getrandbits(64)), inputs)
    files = {"json.vec": doc_rec.bytes(), "names.vec": name_rec.bytes(),
             "snapshots.vec": snap_rec.bytes(), "scores.jsonl": scores,
             "reader.vec": reader_rec.bytes(), "printable.txt": write_printable(),
             "repr.vec": write_repr(inputs)[0].bytes()}
    os.makedirs(args.out, exist_ok=True)
    stale = []
    for fname, data in files.items():
        path = os.path.join(args.out, fname)
        if args.check:
            with open(path, "rb") as f:
                if f.read() != data:
                    stale.append(fname)
        else:
            with open(path, "wb") as f:
                f.write(data)
    print("%d documents, %d names, %d snapshots, %d scoring cases, %d mutated texts (%d read); "
          "%d bytes" % (len(inputs), len(names), n_snap, n_scores, N_MUTANTS, n_accepted,
                        sum(len(d) for d in files.values())))
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
