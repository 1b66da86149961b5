import assert from 'node:assert/strict';
import test from 'node:test';
import { Decoder, Encoder } from '@msgpack/msgpack';
import { toWire } from '../src/values.js';
import { decodeValue, encodeRequest } from '../src/wire.js';

// @msgpack/msgpack, as the package used it, is the reference for the bytes.
const reference = new Encoder({ useBigInt64: true });
const referenceDecoder = new Decoder({ useBigInt64: true });
const small = (v) => (typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v);
function referenceValue(v) {
  if (Array.isArray(v)) return v.map(referenceValue);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, referenceValue(x)]));
  return small(v);
}

let seed = 7;
function rnd() {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
}
const strings = ['', 'a', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(255), 'w'.repeat(256), 'v'.repeat(70000), 'é', '日本語'.repeat(20), '😀', 'nul\u0000in a value'];
const numbers = [0, -0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, 0.5, -1.25, 1e300, 2 ** 53, -(2 ** 63), 2 ** 64 - 2 ** 11];
function value(depth) {
  const r = rnd();
  if (depth > 4 || r < 0.4) {
    const pick = Math.floor(rnd() * 7);
    if (pick === 0) return null;
    if (pick === 1) return rnd() < 0.5;
    if (pick === 2 || pick === 3) return strings[Math.floor(rnd() * strings.length)];
    if (pick === 4) return 2n ** 63n + 5n;
    return numbers[Math.floor(rnd() * numbers.length)];
  }
  const n = Math.floor(rnd() * (rnd() < 0.1 ? 40 : 6));
  if (r < 0.7) return Array.from({ length: n }, () => value(depth + 1));
  const o = {};
  for (let i = 0; i < n; i++) o[`${strings[Math.floor(rnd() * 9)].slice(0, 40)}${i}`] = value(depth + 1);
  return o;
}

test('requests are the bytes of the reference encoder, and read back', () => {
  for (let i = 0; i < 2000; i++) {
    const v = toWire(value(0));
    const frame = encodeRequest(i + 1, 'check', { actual: v });
    const ref = Buffer.from(reference.encode({ id: i + 1, method: 'check', params: { actual: v } }));
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    assert.deepEqual(frame.subarray(4), ref);
    assert.deepEqual(decodeValue(frame.subarray(4)), referenceValue(referenceDecoder.decode(ref)));
  }
  // larger containers than the random ones: 16- and 32-bit headers
  const big = { l: Array.from({ length: 70000 }, (_, i) => i % 3), m: Object.fromEntries(Array.from({ length: 70000 }, (_, i) => [`k${i}`, i])) };
  assert.deepEqual(encodeRequest(9, 'check', big).subarray(4), Buffer.from(reference.encode({ id: 9, method: 'check', params: big })));
});

test('64-bit integers read back exact, as BigInt only outside the safe range', () => {
  assert.equal(decodeValue(Buffer.from('cf' + 'ff'.repeat(8), 'hex')), 2n ** 64n - 1n);
  assert.equal(decodeValue(Buffer.from('d3' + '80' + '00'.repeat(7), 'hex')), -(2n ** 63n));
  assert.equal(decodeValue(Buffer.from('cf' + '00'.repeat(4) + 'ffffffff', 'hex')), 2 ** 32 - 1);
  assert.equal(decodeValue(Buffer.from('ca3f800000', 'hex')), 1);
});

test('a key named __proto__ is data', () => {
  const v = decodeValue(Buffer.from('81a95f5f70726f746f5f5f01', 'hex'));
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__']);
  assert.equal(Object.getOwnPropertyDescriptor(v, '__proto__').value, 1);
});

test('what the protocol refuses is an error naming the byte', () => {
  for (const [hex, what] of [
    ['c40178', /bin, ext or never used/],
    ['c1', /0xc1/],
    ['810102', /a map key that is not a string at byte 1/],
    ['9201', /an array of 2 items in fewer bytes/],
    ['9201cd01', /cut short/],
    ['0102', /1 byte\(s\) after the value/],
    ['ddffffffff', /in fewer bytes/],
    ['91'.repeat(200) + 'c0', /nested deeper than 136/],
  ])
    assert.throws(() => decodeValue(Buffer.from(hex, 'hex')), what, hex);
});

test('packValue gives the bytes of toWire, packed, and its errors', async () => {
  const { packValue } = await import('../src/values.js');
  const bytes = (v) => encodeRequest(1, 'check', { actual: v }).subarray(4);
  class Model {
    constructor(n) {
      this.n = n;
      this.skip = undefined;
    }
    toJSON() {
      return { kind: 'model', n: this.n, at: new Date(0) };
    }
  }
  for (let i = 0; i < 1000; i++) {
    const v = value(0);
    const extra = { v, f() {}, u: undefined, s: Symbol('x'), m: new Model(i), list: [undefined, () => 1, 2 ** 40, -(2 ** 40)] };
    // sixteen members of which one is absent: the header shrinks to a fixmap
    const wide = Object.fromEntries(Array.from({ length: 16 }, (_, k) => [`k${k}`, k === 7 ? undefined : v]));
    for (const x of [v, extra, wide])
      assert.deepEqual(bytes(packValue(x, 'actual')), bytes(toWire(x, 'actual')));
  }
  const cyc = { a: [1] };
  cyc.a.push(cyc);
  for (const bad of [{ x: [1, NaN] }, cyc, { p: Promise.resolve(1) }, { m: new Map() }, { k: { 'a\u0000': 1 } }, 2n ** 64n, () => 1])
    assert.throws(() => packValue(bad, 'actual'), (e) => {
      assert.throws(() => toWire(bad, 'actual'), { message: e.message });
      return e instanceof TypeError;
    });
});

test('a Packed from another copy of the module is written as it is (Jest registries)', async () => {
  const other = await import('../src/wire.js?another-registry');
  const bytes = Buffer.from([0x91, 0x01]);
  const frame = encodeRequest(1, 'check', { actual: new other.Packed(bytes) });
  assert.deepEqual(frame.subarray(-9), Buffer.concat([Buffer.from('\xa6actual', 'latin1'), bytes]));
});
