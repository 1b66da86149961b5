import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Encoder } from '@msgpack/msgpack';
import { toWire } from '../src/values.js';
import { fromWire } from '../src/values.js';

const enc = (v) => Buffer.from(new Encoder({ useBigInt64: true }).encode(toWire(v))).toString('hex');

test('integers travel as integers, other numbers as float 64', () => {
  assert.equal(enc(1), '01');
  assert.equal(enc(-1), 'ff');
  assert.equal(enc(1.5), 'cb3ff8000000000000');
  assert.equal(enc(2 ** 40), 'cf0000010000000000');
  assert.equal(enc(2 ** 60), 'cf1000000000000000'); // an integer value, as JSON.stringify writes it
  assert.equal(enc(-(2 ** 40)), 'd3ffffff0000000000');
  assert.equal(enc(2 ** 31), 'ce80000000');
  assert.equal(enc(1e20), 'cb4415af1d78b58c40'); // beyond 2^64: a float
  assert.equal(enc(-0), '00');
  assert.equal(enc(18446744073709551615n), 'cfffffffffffffffff');
  assert.equal(enc(-9223372036854775808n), 'd38000000000000000');
  assert.equal(enc(5n), '05');
});

test('JSON.stringify semantics: toJSON, own enumerable keys in order, undefined dropped', () => {
  class Result {
    constructor() {
      this.steps = [{ a: 1, skip: undefined, f() {} }];
    }
    get toolCalls() {
      return ['getter values do not serialize'];
    }
  }
  const d = new Date(Date.UTC(2025, 0, 2));
  assert.deepEqual(toWire({ z: 1, a: [undefined, () => 1], d, r: new Result() }), {
    z: 1,
    a: [null, null],
    d: '2025-01-02T00:00:00.000Z',
    r: { steps: [{ a: 1 }] },
  });
  assert.deepEqual(Object.keys(toWire({ b: 1, a: 2 })), ['b', 'a']);
  assert.deepEqual(toWire({ toJSON: () => ({ lc: 1, kwargs: {} }) }), { lc: 1, kwargs: {} });
});

test('values JSON has no room for are refused with their path', () => {
  const cyc = { a: {} };
  cyc.a.self = cyc;
  assert.throws(() => toWire({ x: [1, NaN] }, 'actual'), /actual\.x\[1\] is NaN/);
  assert.throws(() => toWire({ x: Infinity }, 'actual'), /actual\.x is Infinity/);
  assert.throws(() => toWire(cyc, 'actual'), /actual\.a\.self is a circular reference/);
  assert.throws(() => toWire({ p: Promise.resolve(1) }, 'actual'), /actual\.p is a Promise \(did you forget await\?\)/);
  assert.throws(() => toWire(new Map(), 'actual'), /actual is a Map/);
  assert.throws(() => toWire({ s: 'a\uD800b' }, 'actual'), /actual\.s is a string with a lone surrogate/);
  assert.throws(() => toWire({ 'a\u0000': 1 }, 'actual'), /has a key holding U\+0000/);
  assert.throws(() => toWire(2n ** 64n, 'actual'), /outside the integers/);
  assert.throws(() => toWire(new Uint8Array(2), 'actual'), /binary data/);
  assert.throws(() => toWire(undefined, 'actual'), /actual is undefined/);
  let deep = {};
  for (let i = 0; i < 200; i++) deep = { a: deep };
  assert.throws(() => toWire(deep, 'actual'), /nested deeper than 126 levels/);
  assert.equal(toWire('a\uD83D\uDE00'), 'a\uD83D\uDE00'); // a pair is fine
});

test('replies: 64-bit integers in the safe range become numbers', () => {
  assert.deepEqual(fromWire({ a: [5n, 2n ** 63n] }), { a: [5, 2n ** 63n] });
});
