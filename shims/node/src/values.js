// JavaScript values to the protocol's JSON data model (docs/protocol.md
// section 3), the way JSON.stringify serializes them: toJSON() first (a
// Date becomes its ISO string, an SDK class its chosen shape), own
// enumerable string keys in order, undefined, functions and symbols left
// out of objects and null in arrays. What JSON has no room for is refused
// with a TypeError naming the path: NaN and infinities, circular
// references, lone surrogates, keys holding U+0000, integers outside the
// wire's range, and a Promise, Map or Set (nothing would survive). A number
// with an integer value in the wire's range (-2^63 .. 2^64-1) travels as an
// integer, as JSON.stringify would write it; any other number as a float
// 64; a BigInt is an integer. packValue applies the same rules while
// writing the value's msgpack (wire.js), with no converted tree in between:
// what a check sends.

import { Packed, Writer } from './wire.js';

const MAX_DEPTH = 126; // 128 levels per payload, the request envelope holds 2
const INT_MIN = -(2n ** 63n);
const UINT_MAX = 2n ** 64n - 1n;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function wellFormed(s) {
  return typeof s.isWellFormed === 'function' ? s.isWellFormed() : !LONE_SURROGATE.test(s);
}

function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? (v.constructor?.name ?? 'Object') : typeof v;
}

function refuse(where, what) {
  return new TypeError(`toolscored: ${where} ${what}`);
}

// A value's place, for errors only: {up: the container's place, key: an
// index or a property name}; the root's up is null and its key the root's
// name ("actual"). The text is built only when an error is raised.
function placeText(up, key) {
  if (up === null) return key;
  const base = placeText(up.up, up.key);
  return typeof key === 'number' ? `${base}[${key}]` : `${base}.${key}`;
}

function convert(value, key, up, depth, seen) {
  if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function')
    value = value.toJSON(up === null ? '' : String(key));
  switch (typeof value) {
    case 'string':
      if (!wellFormed(value)) throw refuse(placeText(up, key), 'is a string with a lone surrogate (not valid UTF-8)');
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw refuse(placeText(up, key), `is ${value} (JSON has no NaN or infinity)`);
      // msgpack's encoder writes numbers outside 32 bits as floats: such an
      // integer-valued number (JSON.stringify writes it as an integer) goes
      // as a BigInt, an int 64 or uint 64
      if (Number.isInteger(value) && (value >= 2 ** 32 || value < -(2 ** 31)) && value >= -(2 ** 63) && value < 2 ** 64)
        return BigInt(value);
      return value;
    case 'boolean':
      return value;
    case 'bigint':
      if (value < INT_MIN || value > UINT_MAX)
        throw refuse(placeText(up, key), `is ${value}, outside the integers the protocol carries (-2^63 .. 2^64-1)`);
      return value >= -(2n ** 31n) && value < 2n ** 32n ? Number(value) : value;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return null;
  checkContainer(value, key, up, depth, seen);
  seen.add(value);
  const here = { up, key };
  let out;
  if (Array.isArray(value)) {
    out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = convert(value[i], i, here, depth + 1, seen);
      out[i] = v === undefined ? null : v;
    }
  } else {
    out = {};
    for (const k of Object.keys(value)) {
      if (k.includes('\u0000')) throw refuse(placeText(up, key), `has a key holding U+0000`);
      if (!wellFormed(k)) throw refuse(placeText(up, key), 'has a key with a lone surrogate');
      const v = convert(value[k], k, here, depth + 1, seen);
      if (v !== undefined) out[k] = v;
    }
  }
  seen.delete(value);
  return out;
}

// The checks of convert on a value that is not a string, number, boolean,
// BigInt or absent: its depth, a Promise, Map, Set or binary data, a cycle.
function checkContainer(value, key, up, depth, seen) {
  if (depth > MAX_DEPTH) throw refuse(placeText(up, key), `is nested deeper than ${MAX_DEPTH} levels`);
  if (typeof value.then === 'function') throw refuse(placeText(up, key), 'is a Promise (did you forget await?)');
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap)
    throw refuse(placeText(up, key), `is a ${kind(value)}, which has no JSON form (convert it first)`);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
    throw refuse(placeText(up, key), `is binary data (${kind(value)}), which has no JSON form`);
  if (seen.has(value)) throw refuse(placeText(up, key), 'is a circular reference');
}

// convert, writing to w: false when the value is absent (undefined, a
// function or a symbol: left out of an object, null in an array).
function pack(w, value, key, up, depth, seen) {
  if (value !== null && typeof value === 'object' && typeof value.toJSON === 'function')
    value = value.toJSON(up === null ? '' : String(key));
  switch (typeof value) {
    case 'string':
      if (!wellFormed(value)) throw refuse(placeText(up, key), 'is a string with a lone surrogate (not valid UTF-8)');
      w.string(value);
      return true;
    case 'number':
      if (!Number.isFinite(value)) throw refuse(placeText(up, key), `is ${value} (JSON has no NaN or infinity)`);
      if (Number.isInteger(value) && (value >= 2 ** 32 || value < -(2 ** 31)) && value >= -(2 ** 63) && value < 2 ** 64)
        w.bigint(BigInt(value));
      else w.number(value);
      return true;
    case 'boolean':
      w.byte(value ? 0xc3 : 0xc2);
      return true;
    case 'bigint':
      if (value < INT_MIN || value > UINT_MAX)
        throw refuse(placeText(up, key), `is ${value}, outside the integers the protocol carries (-2^63 .. 2^64-1)`);
      w.bigint(value);
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
    default:
      break;
  }
  if (value === null) {
    w.byte(0xc0);
    return true;
  }
  checkContainer(value, key, up, depth, seen);
  seen.add(value);
  const here = { up, key };
  if (Array.isArray(value)) {
    w.arrayHead(value.length);
    for (let i = 0; i < value.length; i++) if (!pack(w, value[i], i, here, depth + 1, seen)) w.byte(0xc0);
  } else {
    const keys = Object.keys(value);
    const start = w.pos;
    w.mapHead(keys.length);
    const headLen = w.pos - start;
    let n = 0;
    for (const k of keys) {
      if (k.includes('\u0000')) throw refuse(placeText(up, key), `has a key holding U+0000`);
      if (!wellFormed(k)) throw refuse(placeText(up, key), 'has a key with a lone surrogate');
      const mark = w.pos;
      w.string(k);
      if (pack(w, value[k], k, here, depth + 1, seen)) n++;
      else w.pos = mark;
    }
    if (n !== keys.length) w.fixMapHead(start, headLen, n);
  }
  seen.delete(value);
  return true;
}

const packer = new Writer();

/**
 * value packed as toWire would give it and the wire carries it (a Packed,
 * which wire.js's encoder writes as it is); errors as toWire's.
 */
export function packValue(value, where = 'value') {
  // a toJSON that packs a value itself gets a writer of its own
  const w = packer.busy ? new Writer() : packer;
  w.busy = true;
  w.pos = 0;
  try {
    if (!pack(w, value, where, null, 0, new Set())) throw refuse(where, `is ${typeof value}, which has no JSON form`);
    return new Packed(w.take(0));
  } finally {
    w.busy = false;
    if (w.buf.length > 1 << 20) w.buf = Buffer.allocUnsafe(8192); // keep no huge buffer
  }
}

/** value as a protocol value; where names it in errors (e.g. "actual"). */
export function toWire(value, where = 'value') {
  const out = convert(value, where, null, 0, new Set());
  if (out === undefined) throw refuse(where, `is ${typeof value}, which has no JSON form`);
  return out;
}

/** Replies decode 64-bit integers as BigInt: those in the safe range become numbers. */
export function fromWire(value) {
  if (typeof value === 'bigint')
    return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = fromWire(value[i]);
  } else {
    for (const k of Object.keys(value)) value[k] = fromWire(value[k]);
  }
  return value;
}
