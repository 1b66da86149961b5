// The worker's one connection. Test runners evaluate a package once per test
// file (Jest gives every file its own module registry), so the connection is
// kept on the node:net module object, which every registry of a worker
// process shares: one connection per worker, whatever loads this file.

import net from 'node:net';
import { Connection } from './connection.js';
import { defaultSocketPath } from './paths.js';

const SLOT = Symbol.for('toolscored.connection');

/**
 * The connection of this process for the socket in effect (made on first
 * use). It is found by the socket it was made for: store_busy may have sent
 * it to another daemon's socket since, where it stays.
 */
export function connection() {
  const socketPath = defaultSocketPath();
  let c = net[SLOT];
  if (!c || c.madeFor !== socketPath || c.pid !== process.pid) {
    c = new Connection({ socketPath });
    c.madeFor = socketPath;
    net[SLOT] = c;
  }
  return c;
}
