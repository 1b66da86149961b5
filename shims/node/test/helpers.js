// Helpers of the package's own tests: a temporary directory and a fake
// server speaking the protocol's framing, scripted per test.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Decoder, Encoder } from '@msgpack/msgpack';

export function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'toolscored-node-'));
}

export function frame(value) {
  const payload = new Encoder({ useBigInt64: true }).encode(value);
  const out = Buffer.alloc(4 + payload.length);
  out.writeUInt32BE(payload.length, 0);
  Buffer.from(payload).copy(out, 4);
  return out;
}

/**
 * A server on a fresh socket: onRequest(req, conn) is called with each
 * decoded request and conn.reply(value) / conn.raw(bytes) / conn.end().
 */
export async function fakeServer(onRequest) {
  const dir = tempDir();
  const socketPath = path.join(dir, 's.sock');
  const conns = [];
  const server = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    const conn = {
      sock,
      reply: (v) => sock.write(frame(v)),
      raw: (b) => sock.write(b),
      end: () => sock.destroy(),
    };
    conns.push(conn);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const n = buf.readUInt32BE(0);
        const req = new Decoder({ useBigInt64: true }).decode(buf.subarray(4, 4 + n));
        const bytes = buf.subarray(0, 4 + n);
        buf = buf.subarray(4 + n);
        onRequest(req, conn, bytes);
      }
    });
    sock.on('error', () => {});
  });
  await new Promise((r) => server.listen(socketPath, r));
  return {
    socketPath,
    conns,
    server,
    close: () =>
      new Promise((r) => {
        for (const c of conns) c.sock.destroy();
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          r();
        });
      }),
  };
}

/** A hello reply for req. */
export function helloOk(req, extra = {}) {
  return { id: req.id, ok: true, result: { protocol: 1, server: 'fake/1', pid: 1, max_frame: 16777216, ...extra } };
}
