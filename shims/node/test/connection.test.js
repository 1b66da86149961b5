// The client against a fake server: the bytes of docs/protocol.md's
// example, framing in any chunking, pipelining, error replies, a
// connection-level error, a broken connection, bad replies, version
// mismatch, auto-start failures, where the daemon is found.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { Decoder } from '@msgpack/msgpack';
import { Connection, deadlinesFromEnv, findDaemon } from '../src/connection.js';
import { ConnectionError, DaemonError } from '../src/errors.js';
import { fakeServer, frame, helloOk, tempDir } from './helpers.js';

const DOC_HELLO =
  '0000003e83a2696401a66d6574686f64a568656c6c6fa6706172616d7383a870726f746f636f6c01a6636c69656e74ab' +
  '74736374' + '6c2f302e312e30a3706964cd1092';

test('the hello of docs/protocol.md section 9, byte for byte', async () => {
  let seen;
  const srv = await fakeServer((req, conn, bytes) => {
    seen = bytes.toString('hex');
    conn.reply(helloOk(req));
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false, client: 'tsctl/0.1.0' });
  const realPid = process.pid;
  Object.defineProperty(process, 'pid', { value: 4242, configurable: true });
  try {
    await c.connect();
  } finally {
    Object.defineProperty(process, 'pid', { value: realPid, configurable: true });
  }
  assert.equal(seen, DOC_HELLO);
  c.close();
  await srv.close();
});

test('pipelined requests, replies split and joined across reads, errors as DaemonError', async () => {
  const srv = await fakeServer((req, conn) => {
    if (req.method === 'hello') return conn.reply(helloOk(req));
    if (req.method === 'ping' && req.id === 3) {
      // two replies in one write, the second cut in three pieces
      const a = frame({ id: 2, ok: true, result: { n: 2 } });
      const b = frame({ id: 3, ok: false, error: { code: 'not_found', message: 'no snapshot named \'x\'' } });
      conn.raw(Buffer.concat([a, b.subarray(0, 3)]));
      setTimeout(() => conn.raw(b.subarray(3, 9)), 5);
      setTimeout(() => conn.raw(b.subarray(9)), 10);
    }
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await c.connect();
  const p1 = c.request('ping', { x: 1.0 });
  const p2 = c.request('ping', {});
  assert.deepEqual(await p1, { n: 2 });
  await assert.rejects(p2, (err) => err instanceof DaemonError && err.code === 'not_found' && err.method === 'ping');
  c.close();
  await srv.close();
});

test('an error with id nil fails every outstanding request, the next connects again', async () => {
  let hellos = 0;
  const srv = await fakeServer((req, conn) => {
    if (req.method === 'hello') {
      hellos++;
      return conn.reply(helloOk(req));
    }
    if (hellos === 1 && req.id === 3) {
      conn.reply({ id: null, ok: false, error: { code: 'frame_too_large', message: 'frame of 9 bytes over 8' } });
      conn.end();
    } else if (hellos === 2) conn.reply({ id: req.id, ok: true, result: {} });
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  const a = c.request('ping');
  const b = c.request('ping');
  await assert.rejects(a, (e) => e.code === 'frame_too_large');
  await assert.rejects(b, (e) => e.code === 'frame_too_large');
  assert.deepEqual(await c.request('ping'), {});
  assert.equal(hellos, 2);
  c.close();
  await srv.close();
});

test('a connection closed with requests outstanding fails them as disconnected', async () => {
  const srv = await fakeServer((req, conn) => (req.method === 'hello' ? conn.reply(helloOk(req)) : conn.end()));
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(c.request('check', {}), (e) => e instanceof ConnectionError && e.code === 'disconnected' && /may or may not have happened/.test(e.message));
  await srv.close();
});

test('bad replies: not a map, a code that breaks the rules, out of order, oversized frames', async () => {
  const cases = [
    (req) => frame([1, 2]),
    (req) => frame({ id: req.id, ok: false, error: { code: 'has space', message: 'x' } }),
    (req) => frame({ id: req.id + 7, ok: true, result: {} }),
    () => Buffer.from([0xff, 0xff, 0xff, 0xff]),
    () => Buffer.from([0, 0, 0, 1, 0xc1]),
  ];
  for (const make of cases) {
    const srv = await fakeServer((req, conn) => (req.method === 'hello' ? conn.reply(helloOk(req)) : conn.raw(make(req))));
    const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
    await assert.rejects(c.request('ping'), (e) => e instanceof ConnectionError && e.code === 'bad_reply');
    c.close();
    await srv.close();
  }
});

test('a hello refused with version_mismatch is a DaemonError', async () => {
  const srv = await fakeServer((req, conn) => {
    conn.reply({ id: req.id, ok: false, error: { code: 'version_mismatch', message: 'client speaks protocol 1, server speaks protocol 2' } });
    conn.end();
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(c.request('ping'), (e) => e.code === 'version_mismatch');
  await srv.close();
});

test('no daemon: the error names the socket and the reason', async (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const socketPath = `${dir}/none.sock`;
  const off = new Connection({ socketPath, autoStart: false, connectTimeoutMs: 50 });
  await assert.rejects(off.request('ping'), (e) => e.code === 'unavailable' && e.message.includes(socketPath) && /no socket/.test(e.message));
  const saved = process.env.TOOLSCORED;
  process.env.TOOLSCORED = `${dir}/not-there`;
  try {
    const on = new Connection({ socketPath, connectTimeoutMs: 500 });
    await assert.rejects(on.request('ping'), (e) => e.code === 'unavailable' && /TOOLSCORED=.*not-there is not an executable file/.test(e.message));
    process.env.TOOLSCORED = '/bin/false';
    const dies = new Connection({ socketPath, connectTimeoutMs: 2000 });
    await assert.rejects(dies.request('ping'), (e) => e.code === 'unavailable' && /exited with status 1/.test(e.message));
  } finally {
    if (saved === undefined) delete process.env.TOOLSCORED;
    else process.env.TOOLSCORED = saved;
  }
});

test('after a first failure to start the daemon, later requests fail at once until one answers', async () => {
  const dir = tempDir();
  const socketPath = `${dir}/d.sock`;
  const starts = `${dir}/starts`;
  const fake = `${dir}/fake-toolscored`;
  fs.writeFileSync(fake, `#!/bin/sh\necho start >>'${starts}'\necho 'cannot open the store' >&2\nexit 1\n`, { mode: 0o755 });
  const saved = process.env.TOOLSCORED;
  process.env.TOOLSCORED = fake;
  let server = null;
  try {
    const c = new Connection({ socketPath, connectTimeoutMs: 5000 });
    await assert.rejects(c.request('ping'), (e) => e.code === 'unavailable' && /exited with status 1: cannot open the store/.test(e.message));
    for (let i = 0; i < 5; i++)
      await assert.rejects(c.request('ping'), (e) =>
        e instanceof ConnectionError && e.code === 'unavailable' &&
        /cannot open the store/.test(e.message) && /the later ones fail at once/.test(e.message));
    assert.equal(fs.readFileSync(starts, 'utf8'), 'start\n'); // one start in all
    // a daemon that comes back is used again
    server = net.createServer((sock) => {
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
          const n = buf.readUInt32BE(0);
          const req = new Decoder({ useBigInt64: true }).decode(buf.subarray(4, 4 + n));
          buf = buf.subarray(4 + n);
          sock.write(frame(req.method === 'hello' ? helloOk(req) : { id: req.id, ok: true, result: { pong: true } }));
        }
      });
      sock.on('error', () => {});
    });
    await new Promise((r) => server.listen(socketPath, r));
    assert.deepEqual(await c.request('ping'), { pong: true });
    c.close();
  } finally {
    if (server !== null) await new Promise((r) => server.close(r));
    if (saved === undefined) delete process.env.TOOLSCORED;
    else process.env.TOOLSCORED = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a request over the announced max_frame is refused locally', async () => {
  const srv = await fakeServer((req, conn) => conn.reply(helloOk(req, { max_frame: 64 })));
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(c.request('check', { actual: 'x'.repeat(100) }), (e) => e.code === 'too_large' && /maximum frame of 64 bytes/.test(e.message));
  c.close();
  await srv.close();
});

test('back-pressure: many large requests to a slow reader all complete, in order', async () => {
  const seen = [];
  const srv = await fakeServer((req, conn) => {
    if (req.method === 'hello') return conn.reply(helloOk(req));
    seen.push(req.params.i);
    conn.reply({ id: req.id, ok: true, result: { i: req.params.i } });
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await c.connect();
  srv.conns[0].sock.pause();
  setTimeout(() => srv.conns[0].sock.resume(), 50);
  const big = 'x'.repeat(256 * 1024);
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => c.request('echo', { i, big })));
  assert.deepEqual(replies.map((r) => r.i), [...Array(40).keys()]);
  assert.deepEqual(seen, [...Array(40).keys()]);
  c.close();
  await srv.close();
});

// Trust before talking (docs/security.md): a socket another user could have
// put there is refused with `untrusted`, and the server sees no connection.
async function plantedServer() {
  let connections = 0;
  const srv = await fakeServer((req, conn) => conn.reply(helloOk(req)));
  srv.server.on('connection', () => connections++);
  return { srv, connections: () => connections };
}

test('a socket in a directory open to others is refused without a connection', async () => {
  const { srv, connections } = await plantedServer();
  const dir = path.dirname(srv.socketPath);
  fs.chmodSync(dir, 0o777);
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(
    c.request('ping'),
    (e) => e instanceof ConnectionError && e.code === 'untrusted' && e.message.includes(dir) && /mode 0777/.test(e.message),
  );
  assert.equal(connections(), 0);
  fs.chmodSync(dir, 0o700);
  await c.request('ping').catch(() => {});
  assert.equal(connections(), 1, 'the same socket is used once its directory is private again');
  c.close();
  await srv.close();
});

test('a socket directory that is a symbolic link is refused', async () => {
  const { srv, connections } = await plantedServer();
  const link = path.join(tempDir(), 'link');
  fs.symlinkSync(path.dirname(srv.socketPath), link);
  const c = new Connection({ socketPath: path.join(link, path.basename(srv.socketPath)), autoStart: false });
  await assert.rejects(c.request('ping'), (e) => e.code === 'untrusted' && /is a symbolic link \(owned by uid \d+/.test(e.message));
  assert.equal(connections(), 0);
  fs.rmSync(path.dirname(link), { recursive: true, force: true });
  await srv.close();
});

const asRoot = process.geteuid?.() === 0 ? false : 'needs root (to give files to another user)';

test('a planted directory of another user is refused, naming the owner', { skip: asRoot }, async () => {
  const { srv, connections } = await plantedServer();
  const dir = path.dirname(srv.socketPath);
  fs.chownSync(dir, 65534, 65534);
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(c.request('ping'), (e) => e.code === 'untrusted' && /owned by uid 65534/.test(e.message));
  assert.equal(connections(), 0);
  fs.chownSync(dir, 0, 0);
  await srv.close();
});

test("a socket of another user's in our own directory is refused", { skip: asRoot }, async () => {
  const { srv, connections } = await plantedServer();
  fs.chownSync(srv.socketPath, 65534, 65534);
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  await assert.rejects(c.request('ping'), (e) => e.code === 'untrusted' && /the socket belongs to uid 65534/.test(e.message));
  assert.equal(connections(), 0);
  await srv.close();
});

test('store_busy: the request and the connection go to the daemon holding the store', async () => {
  const seenB = [];
  const b = await fakeServer((req, conn) => {
    seenB.push(req.method);
    if (req.method === 'hello') return conn.reply(helloOk(req));
    conn.reply({ id: req.id, ok: true, result: { at: 'b', i: req.params.i ?? null } });
  });
  const seenA = [];
  const a = await fakeServer((req, conn) => {
    seenA.push(req.method);
    if (req.method === 'hello') return conn.reply(helloOk(req));
    setTimeout(
      () =>
        conn.reply({
          id: req.id,
          ok: false,
          error: { code: 'store_busy', message: 'the store is served by another toolscored', socket: b.socketPath },
        }),
      10,
    );
  });
  const c = new Connection({ socketPath: a.socketPath, autoStart: false });
  // several in flight at once: all end at b
  const replies = await Promise.all([0, 1, 2].map((i) => c.request('check', { i })));
  assert.deepEqual(replies.map((r) => r.at), ['b', 'b', 'b']);
  assert.deepEqual(replies.map((r) => r.i), [0, 1, 2]);
  assert.equal(c.socketPath, b.socketPath);
  await c.request('ping');
  assert.deepEqual(seenA.filter((m) => m !== 'hello'), ['check', 'check', 'check']);
  assert.deepEqual(seenB.filter((m) => m !== 'hello'), ['check', 'check', 'check', 'ping']);
  c.close();
  await a.close();
  await b.close();
});

test('a reply past its deadline: timeout naming the daemon and what to do, the next request connects again', async () => {
  let hellos = 0;
  const srv = await fakeServer((req, conn) => {
    if (req.method === 'hello') {
      hellos++;
      return conn.reply(helloOk(req, { pid: 4243 }));
    }
    if (req.method === 'check') return; // never answered: a stopped daemon
    conn.reply({ id: req.id, ok: true, result: {} });
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false, timeoutMs: 200 });
  const start = Date.now();
  await assert.rejects(
    c.request('check', {}),
    (e) =>
      e instanceof ConnectionError &&
      e.code === 'timeout' &&
      e.message.includes(`pid 4243, socket ${srv.socketPath}`) &&
      e.message.includes('did not answer check within 0.200 s') &&
      e.message.includes('TOOLSCORE_TIMEOUT'),
  );
  assert.ok(Date.now() - start >= 190);
  assert.deepEqual(await c.request('ping'), {});
  assert.equal(hellos, 2);
  c.close();
  await srv.close();
});

test('deadlines: 10 s for hello, ping, status and stop, 60 s for the rest, TOOLSCORE_TIMEOUT for all', () => {
  assert.deepEqual(deadlinesFromEnv({}), { short: 10000, long: 60000 });
  assert.deepEqual(deadlinesFromEnv({ TOOLSCORE_TIMEOUT: '2.5' }), { short: 2500, long: 2500 });
  assert.deepEqual(deadlinesFromEnv({ TOOLSCORE_TIMEOUT: ' 3 ' }), { short: 3000, long: 3000 });
  assert.deepEqual(deadlinesFromEnv({ TOOLSCORE_TIMEOUT: '0' }), { short: 0, long: 0 });
  for (const bad of ['abc', '-1', '1e3', '90000'])
    assert.throws(
      () => deadlinesFromEnv({ TOOLSCORE_TIMEOUT: bad }),
      (e) => e.code === 'invalid_argument' && e.message.includes('TOOLSCORE_TIMEOUT'),
    );
  const c = new Connection({ socketPath: '/nowhere/s.sock', autoStart: false });
  assert.equal(c.deadlineFor('status'), 10000);
  assert.equal(c.deadlineFor('check'), 60000);
});

test('findDaemon: $TOOLSCORED, then the platform package, then PATH; the error names the three', (t) => {
  const dir = tempDir();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const none = findDaemon({ PATH: `${dir}/empty` });
  assert.match(
    none.error,
    /^toolscored not found: TOOLSCORED is not set, the platform package toolscored-\S+ is not installed \(.*\), and PATH has no toolscored \(reinstall toolscored, or set TOOLSCORED to a toolscored executable\)$/,
  );
  fs.writeFileSync(`${dir}/toolscored`, '#!/bin/sh\n', { mode: 0o755 });
  assert.deepEqual(findDaemon({ PATH: `${dir}/empty:${dir}` }), { path: `${dir}/toolscored` });
  const bad = findDaemon({ TOOLSCORED: `${dir}/nope`, PATH: dir });
  assert.match(bad.error, /^TOOLSCORED=.*\/nope is not an executable file \(point it at a toolscored executable/);
});
