// The protocol's frames and values (docs/protocol.md sections 2 and 3), for
// the values a client sends (what toWire gives: null, booleans, numbers,
// BigInts, strings, arrays and plain objects) and the replies it reads. The
// bytes are those of the C client library for an equal value: integers and
// every header in their smallest form, non-integer numbers as float 64, so
// that a replay's calls meet the daemon's cached bytes of its baseline.
// Replies decode 64-bit integers outside the safe range to BigInt, all others
// to numbers; bin, ext and the never-used byte are refused.

const MAX_DEPTH = 136; // how deep a reply may nest

// Marks a Packed by a registered symbol, not its class: Jest gives each
// test file a registry of its own, and the worker's one connection (whose
// encoder meets the value) comes from the first.
const PACKED = Symbol.for('toolscored.packed');

/** Bytes that already are one packed value (values.js, packValue): written as they are. */
export class Packed {
  constructor(bytes) {
    this.bytes = bytes;
    this[PACKED] = true;
  }
}

export class Writer {
  constructor() {
    this.buf = Buffer.allocUnsafe(8192);
    this.pos = 0;
  }

  reserve(n) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b) {
    this.reserve(1);
    this.buf[this.pos++] = b;
  }

  // A header of count n: the fix form up to fixMax (fixBase | n), then the
  // 8-bit form (strings only), then the 16- and 32-bit forms.
  head(fixBase, fixMax, form8, form16, n) {
    this.reserve(5);
    const b = this.buf;
    if (n <= fixMax) {
      b[this.pos++] = fixBase | n;
    } else if (form8 !== 0 && n <= 0xff) {
      b[this.pos++] = form8;
      b[this.pos++] = n;
    } else if (n <= 0xffff) {
      b[this.pos++] = form16;
      b.writeUInt16BE(n, this.pos);
      this.pos += 2;
    } else {
      b[this.pos++] = form16 + 1;
      b.writeUInt32BE(n, this.pos);
      this.pos += 4;
    }
  }

  arrayHead(n) {
    this.head(0x90, 15, 0, 0xdc, n);
  }

  mapHead(n) {
    this.head(0x80, 15, 0, 0xde, n);
  }

  /**
   * The map header written at start (headLen bytes, for more members)
   * rewritten for n members, what follows it moved when its size changes.
   */
  fixMapHead(start, headLen, n) {
    const end = this.pos;
    this.pos = start;
    this.mapHead(n);
    const newLen = this.pos - start;
    if (newLen !== headLen) this.buf.copyWithin(start + newLen, start + headLen, end);
    this.pos = end - headLen + newLen;
  }

  /** The bytes written since start, as a new Buffer. */
  take(start) {
    const out = Buffer.allocUnsafe(this.pos - start);
    this.buf.copy(out, 0, start, this.pos);
    return out;
  }

  string(s) {
    const n = s.length;
    // short ASCII, the common case: the bytes written as they are read
    if (n < 32) {
      this.reserve(1 + n);
      const b = this.buf;
      const start = this.pos;
      let p = start + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        b[p++] = c;
      }
      if (i === n) {
        b[start] = 0xa0 | n;
        this.pos = p;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.head(0xa0, 31, 0xd9, 0xda, len);
    this.reserve(len);
    this.pos += this.buf.utf8Write(s, this.pos, len);
  }

  number(v) {
    this.reserve(9);
    const b = this.buf;
    if (Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 32) {
      if (v >= 0) {
        if (v < 0x80) b[this.pos++] = v;
        else if (v <= 0xff) {
          b[this.pos++] = 0xcc;
          b[this.pos++] = v;
        } else if (v <= 0xffff) {
          b[this.pos++] = 0xcd;
          b.writeUInt16BE(v, this.pos);
          this.pos += 2;
        } else {
          b[this.pos++] = 0xce;
          b.writeUInt32BE(v, this.pos);
          this.pos += 4;
        }
      } else if (v >= -32) b[this.pos++] = v & 0xff;
      else if (v >= -128) {
        b[this.pos++] = 0xd0;
        b.writeInt8(v, this.pos);
        this.pos += 1;
      } else if (v >= -32768) {
        b[this.pos++] = 0xd1;
        b.writeInt16BE(v, this.pos);
        this.pos += 2;
      } else {
        b[this.pos++] = 0xd2;
        b.writeInt32BE(v, this.pos);
        this.pos += 4;
      }
      return;
    }
    // integers outside 32 bits come as BigInt (toWire): any number here is a float
    b[this.pos++] = 0xcb;
    b.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }

  bigint(v) {
    if (v >= -(2n ** 31n) && v < 2n ** 32n) {
      this.number(Number(v));
      return;
    }
    this.reserve(9);
    if (v >= 0n) {
      this.buf[this.pos++] = 0xcf;
      this.buf.writeBigUInt64BE(v, this.pos);
    } else {
      this.buf[this.pos++] = 0xd3;
      this.buf.writeBigInt64BE(v, this.pos);
    }
    this.pos += 8;
  }

  value(v) {
    switch (typeof v) {
      case 'string':
        this.string(v);
        return;
      case 'number':
        this.number(v);
        return;
      case 'boolean':
        this.byte(v ? 0xc3 : 0xc2);
        return;
      case 'bigint':
        this.bigint(v);
        return;
      default:
        break;
    }
    if (v === null || v === undefined) {
      this.byte(0xc0);
    } else if (v[PACKED] === true) {
      this.reserve(v.bytes.length);
      this.pos += v.bytes.copy(this.buf, this.pos);
    } else if (Array.isArray(v)) {
      this.arrayHead(v.length);
      for (let i = 0; i < v.length; i++) this.value(v[i]);
    } else {
      const keys = Object.keys(v);
      this.mapHead(keys.length);
      for (let i = 0; i < keys.length; i++) {
        this.string(keys[i]);
        this.value(v[keys[i]]);
      }
    }
  }
}

const writer = new Writer();

/**
 * One request frame: the 4-byte length, then {id, method, params} (params a
 * wire value, as toWire gives). A new Buffer the caller may keep.
 */
export function encodeRequest(id, method, params) {
  const w = writer;
  w.pos = 4;
  w.byte(0x83);
  w.string('id');
  w.number(id);
  w.string('method');
  w.string(method);
  w.string('params');
  w.value(params);
  const frame = Buffer.allocUnsafe(w.pos);
  w.buf.copy(frame, 0, 0, w.pos);
  frame.writeUInt32BE(w.pos - 4, 0);
  if (w.buf.length > 1 << 20) w.buf = Buffer.allocUnsafe(8192); // keep no huge buffer
  return frame;
}

// ---- decoding -------------------------------------------------------------

class WireError extends Error {}

function fail(r, what) {
  throw new WireError(`${what} at byte ${r.pos}`);
}

function need(r, n) {
  if (r.pos + n > r.end) fail(r, 'a value cut short');
}

function str(r, n) {
  need(r, n);
  const start = r.pos;
  r.pos += n;
  return r.buf.utf8Slice(start, start + n);
}

// Map keys repeat from one reply to the next ("outcome", "score", ...): the
// short ones are kept, by length and first bytes, and compared byte by byte.
const KEYS = new Array(4096).fill(null);

function keyStr(r, n) {
  if (n === 0 || n > 24) return str(r, n);
  need(r, n);
  const b = r.buf;
  const start = r.pos;
  let h = n;
  for (let i = start; i < start + n; i++) h = (h * 31 + b[i]) & 4095;
  const e = KEYS[h];
  if (e !== null && e.bytes.length === n) {
    let i = 0;
    while (i < n && e.bytes[i] === b[start + i]) i++;
    if (i === n) {
      r.pos += n;
      return e.text;
    }
  }
  const text = str(r, n);
  KEYS[h] = { bytes: Buffer.from(b.subarray(start, start + n)), text };
  return text;
}

function int64(v) {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

function array(r, n, depth) {
  if (n > r.end - r.pos) fail(r, `an array of ${n} items in fewer bytes`);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = value(r, depth + 1);
  return out;
}

function map(r, n, depth) {
  if (n > (r.end - r.pos) / 2) fail(r, `a map of ${n} members in fewer bytes`);
  const out = {};
  for (let i = 0; i < n; i++) {
    const k = key(r);
    const v = value(r, depth + 1);
    // a key named __proto__ is data like any other, not the prototype
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

function key(r) {
  need(r, 1);
  const b = r.buf[r.pos++];
  if (b >= 0xa0 && b <= 0xbf) return keyStr(r, b & 0x1f);
  if (b === 0xd9) {
    need(r, 1);
    return keyStr(r, r.buf[r.pos++]);
  }
  if (b === 0xda) {
    need(r, 2);
    r.pos += 2;
    return str(r, r.buf.readUInt16BE(r.pos - 2));
  }
  if (b === 0xdb) {
    need(r, 4);
    r.pos += 4;
    return str(r, r.buf.readUInt32BE(r.pos - 4));
  }
  r.pos--;
  return fail(r, 'a map key that is not a string');
}

function value(r, depth) {
  if (depth > MAX_DEPTH) fail(r, `values nested deeper than ${MAX_DEPTH} levels`);
  need(r, 1);
  const b = r.buf;
  const t = b[r.pos++];
  if (t < 0x80) return t;
  if (t <= 0x8f) return map(r, t & 0x0f, depth);
  if (t <= 0x9f) return array(r, t & 0x0f, depth);
  if (t <= 0xbf) return str(r, t & 0x1f);
  if (t >= 0xe0) return t - 0x100;
  let v;
  switch (t) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xca:
      need(r, 4);
      v = b.readFloatBE(r.pos);
      r.pos += 4;
      return v;
    case 0xcb:
      need(r, 8);
      v = b.readDoubleBE(r.pos);
      r.pos += 8;
      return v;
    case 0xcc:
      need(r, 1);
      return b[r.pos++];
    case 0xcd:
      need(r, 2);
      r.pos += 2;
      return b.readUInt16BE(r.pos - 2);
    case 0xce:
      need(r, 4);
      r.pos += 4;
      return b.readUInt32BE(r.pos - 4);
    case 0xcf:
      need(r, 8);
      r.pos += 8;
      return int64(b.readBigUInt64BE(r.pos - 8));
    case 0xd0:
      need(r, 1);
      r.pos += 1;
      return b.readInt8(r.pos - 1);
    case 0xd1:
      need(r, 2);
      r.pos += 2;
      return b.readInt16BE(r.pos - 2);
    case 0xd2:
      need(r, 4);
      r.pos += 4;
      return b.readInt32BE(r.pos - 4);
    case 0xd3:
      need(r, 8);
      r.pos += 8;
      return int64(b.readBigInt64BE(r.pos - 8));
    case 0xd9:
      need(r, 1);
      return str(r, b[r.pos++]);
    case 0xda:
      need(r, 2);
      r.pos += 2;
      return str(r, b.readUInt16BE(r.pos - 2));
    case 0xdb:
      need(r, 4);
      r.pos += 4;
      return str(r, b.readUInt32BE(r.pos - 4));
    case 0xdc:
      need(r, 2);
      r.pos += 2;
      return array(r, b.readUInt16BE(r.pos - 2), depth);
    case 0xdd:
      need(r, 4);
      r.pos += 4;
      return array(r, b.readUInt32BE(r.pos - 4), depth);
    case 0xde:
      need(r, 2);
      r.pos += 2;
      return map(r, b.readUInt16BE(r.pos - 2), depth);
    case 0xdf:
      need(r, 4);
      r.pos += 4;
      return map(r, b.readUInt32BE(r.pos - 4), depth);
    default:
      r.pos--;
      return fail(r, `type byte 0x${t.toString(16)} (bin, ext or never used)`);
  }
}

/** The one msgpack value of payload (a Buffer); throws an Error saying what is wrong. */
export function decodeValue(payload) {
  const r = { buf: payload, pos: 0, end: payload.length };
  const v = value(r, 1);
  if (r.pos !== r.end) fail(r, `${r.end - r.pos} byte(s) after the value`);
  return v;
}
