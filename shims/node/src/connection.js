// One connection to toolscored (docs/protocol.md): framing (4-byte
// big-endian length + one msgpack value), hello, request ids counted up from
// 1, any number of requests in flight (replies come back in order and are
// matched by id; writes wait while the socket's buffer is full), error
// replies as DaemonError, a broken connection failing
// what was outstanding. Connecting starts the daemon when none answers and
// retries with backoff until the connect budget is spent; after the daemon
// went away (a restart, an idle exit) the next request connects again; after
// a first failure to reach or start one, later requests fail at once with
// its reason unless a daemon answers (none is started again). The
// socket holds the event loop only while replies are awaited, and the
// client's timers come from node:timers, out of reach of a test's fake
// timers. Every request has a deadline (docs/protocol.md, "Deadlines"):
// 10 s for hello, ping, status and stop, 60 s for the rest, or the seconds
// of TOOLSCORE_TIMEOUT for all (0: none); when it passes the connection is
// given up and what was outstanding fails with `timeout`, naming the
// daemon (socket, pid) and what to do.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { clearTimeout, setTimeout as timer } from 'node:timers';
import { ConnectionError, DaemonError, ToolscoreError } from './errors.js';
import { envValue } from './env.js';
import { defaultSocketPath } from './paths.js';
import { onPath, packagedExecutable } from './platform.js';
import { trustedTarget } from './trust.js';
import { VERSION } from './version.js';
import { decodeValue, encodeRequest } from './wire.js';

export const PROTOCOL = 1;
const DEFAULT_MAX_FRAME = 16 * 1024 * 1024;
const CODE_RE = /^[\x21-\x7e]{1,39}$/;
const REDIRECTS_MAX = 3; // store_busy hops one request follows
export const SHORT_TIMEOUT_MS = 10000; // hello, ping, status, stop
export const LONG_TIMEOUT_MS = 60000; // every other request
const SHORT_METHODS = new Set(['hello', 'ping', 'status', 'stop']);

/**
 * The request deadlines in ms (0: none): TOOLSCORE_TIMEOUT, in seconds, for
 * every request, else each request's own. Throws a ToolscoreError
 * (`invalid_argument`) for a value that is not a number of seconds.
 */
export function deadlinesFromEnv(env = process.env) {
  const v = envValue('TOOLSCORE_TIMEOUT', env);
  if (v === undefined) return { short: SHORT_TIMEOUT_MS, long: LONG_TIMEOUT_MS };
  if (!/^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(v) || Number(v) > 86400)
    throw new ToolscoreError(
      'invalid_argument',
      `TOOLSCORE_TIMEOUT is '${v.slice(0, 60)}': a number of seconds up to 86400 was expected, e.g. 30 or 2.5 (0: no deadline)`,
    );
  const seconds = Number(v);
  const ms = seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0;
  return { short: ms, long: ms };
}

/** The pid a daemon wrote into the lock file beside its socket, or 0. */
function lockPid(socketPath) {
  try {
    const text = fs.readFileSync(`${socketPath}.lock`, { encoding: 'utf8', flag: fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW });
    const pid = Number.parseInt(text, 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

function seconds(ms) {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(3)} s`;
}

function nowMs() {
  return Number(process.hrtime.bigint() / 1000000n);
}

function sleep(ms) {
  return new Promise((resolve) => timer(resolve, ms));
}

/**
 * The executable for auto-start: $TOOLSCORED (an error when it is not an
 * executable file), else the platform package's toolscored, else toolscored
 * on PATH; when none serves, the error names the three.
 */
export function findDaemon(env = process.env) {
  const explicit = envValue('TOOLSCORED', env);
  if (explicit !== undefined) {
    try {
      fs.accessSync(explicit, fs.constants.X_OK);
      return { path: explicit };
    } catch {
      return {
        error: `TOOLSCORED=${explicit} is not an executable file (point it at a toolscored executable, or unset it to use the platform package's or the one on PATH)`,
      };
    }
  }
  const packaged = packagedExecutable('toolscored');
  if (packaged.path) return packaged;
  const found = onPath('toolscored', env);
  if (found !== null) return { path: found };
  return {
    error: `toolscored not found: TOOLSCORED is not set, ${packaged.error}, and PATH has no toolscored (reinstall toolscored, or set TOOLSCORED to a toolscored executable)`,
  };
}

/** The daemon's version from its hello reply (version, or toolscored/VERSION), or null. */
function serverVersion(r) {
  if (typeof r.version === 'string' && r.version !== '') return r.version;
  if (typeof r.server === 'string' && r.server.startsWith('toolscored/') && r.server.length > 11)
    return r.server.slice(11);
  return null;
}

export class Connection {
  /**
   * @param {object} [options]
   * @param {string} [options.socketPath] default: TOOLSCORE_SOCKET or the daemon's default
   * @param {boolean} [options.autoStart] start toolscored when none answers (default true)
   * @param {number} [options.connectTimeoutMs] the connect budget (default 5000)
   * @param {string} [options.client] the name sent in hello
   * @param {number} [options.timeoutMs] every request's deadline (0: none);
   *   default: TOOLSCORE_TIMEOUT, else 10 s for hello, ping, status and stop
   *   and 60 s for the rest
   */
  constructor(options = {}) {
    this.socketPath = options.socketPath ?? defaultSocketPath();
    this.autoStart = options.autoStart ?? true;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.timeoutMs = options.timeoutMs;
    this.deadlines = null;
    this.serverPid = 0;
    this.clientName = options.client ?? `toolscored-node/${VERSION ?? 'source'}`;
    this.pid = process.pid;
    this.socket = null;
    this.ready = null;
    this.opened = null; // this.ready once it resolved: connected, past hello
    this.nextId = 1;
    this.pending = new Map();
    this.idleWaiters = [];
    this.moved = null;
    this.chunks = [];
    this.buffered = 0;
    this.maxFrame = DEFAULT_MAX_FRAME;
    this.server = null;
    this.serverVersion = null; // the daemon's version, from hello
    this.serverAutoStarted = false; // a client started it (hello's auto_started)
    this.replaced = false; // a daemon of another build was replaced once
    this.drained = null;
    // why the daemon could not be reached or started the first time: later
    // connects fail at once with it, unless a daemon answers (none started)
    this.firstUnavailable = null;
  }

  /**
   * Send one request and resolve to its result (rejects with a ToolscoreError).
   * A daemon that answers store_busy names the socket of the daemon holding
   * the store: the request goes there, and so does the connection.
   */
  async request(method, params = {}) {
    for (let hop = 0; ; hop++) {
      const sentTo = this.socketPath;
      try {
        return await this.attempt(method, params);
      } catch (err) {
        if (err.code === 'store_busy' && hop < REDIRECTS_MAX && typeof err.socket === 'string' &&
            err.socket.startsWith('/') && err.socket !== sentTo) {
          await this.moveTo(err.socket);
          continue;
        }
        // never executed: the daemon was stopping (shutting_down), or the
        // connection was closed before our only request could be read (EPIPE
        // on an idle connection): once more, on a new connection (a new
        // daemon, started if need be)
        if (hop > 0 || (err.code !== 'shutting_down' && !err.retryable)) throw err;
        this.drop();
        return this.attempt(method, params);
      }
    }
  }

  /** Go to the daemon at socketPath once the replies outstanding here are in. */
  async moveTo(socketPath) {
    if (this.socketPath !== socketPath) {
      const from = this.socketPath;
      this.socketPath = socketPath;
      this.moved = this.whenIdle()
        .then(() => this.leaveStarted(from, socketPath))
        .then(() => this.drop());
    }
    await this.moved;
  }

  /**
   * Leaving the daemon this connection started (none answered `from`: a
   * mistyped socket) for the one holding the store: it serves nothing, so
   * it is asked to stop, and the user is told once.
   */
  async leaveStarted(from, to) {
    if (this.startedOn === undefined || this.startedOn !== from || this.socket === null) return;
    this.startedOn = undefined;
    try {
      await this.send('stop', { if_idle: true });
    } catch {
      /* stopping, or gone already */
    }
    console.warn(
      `toolscore: note: no daemon answered at ${from}, so one was started there; but the store ` +
        `is served by the daemon at ${to}, which answered instead, and the one started was ` +
        'stopped (a mistyped TOOLSCORE_SOCKET?)',
    );
  }

  whenIdle() {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  settled() {
    if (this.pending.size !== 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  drop() {
    const sock = this.socket;
    this.socket = null;
    this.ready = null;
    if (sock !== null) sock.destroy();
  }

  attempt(method, params) {
    // the usual case, with no turn of the event loop: connected and past
    // hello, not moving to another daemon, not held back, the socket open
    const sock = this.socket;
    if (this.ready !== null && this.opened === this.ready && this.moved === null && this.drained === null &&
        sock !== null && !sock.readableEnded && !sock.destroyed)
      return this.send(method, params);
    return this.attemptSlow(method, params);
  }

  async attemptSlow(method, params) {
    // an idle connection the daemon closed while this process was busy:
    // when its end was read already, go to a new connection at once (else
    // the write fails with EPIPE, which request() retries)
    if (this.moved !== null) await this.moved;
    const sock = this.socket;
    if (sock !== null && this.pending.size === 0 && (sock.readableEnded || sock.destroyed)) this.drop();
    await this.connect();
    // back-pressure: while the socket's buffer is over its mark, wait for
    // it to drain before writing more
    while (this.drained !== null) await this.drained;
    return this.send(method, params);
  }

  /** Connect and say hello (once; again after the connection was lost). */
  connect() {
    if (this.ready === null) {
      const ready = this.open().then(
        () => {
          if (this.ready === ready) this.opened = ready; // attempt's usual case from now on
        },
        (err) => {
          if (this.ready === ready) this.ready = null;
          throw err;
        },
      );
      this.ready = ready;
    }
    return this.ready;
  }

  /** Close the connection; requests in flight fail with `disconnected`. */
  close() {
    if (this.socket !== null) this.socket.destroy();
  }

  unavailable(reason, cause) {
    return new ConnectionError(
      'unavailable',
      `toolscored is not reachable at ${this.socketPath}: ${reason}`,
      this.socketPath,
      cause ? { cause } : undefined,
    );
  }

  async open() {
    try {
      const r = await (this.firstUnavailable === null ? this.reach() : this.reachAgain());
      this.firstUnavailable = null;
      return r;
    } catch (err) {
      if (err instanceof ConnectionError && err.code === 'unavailable' && this.firstUnavailable === null)
        this.firstUnavailable = err;
      throw err;
    }
  }

  /** After a first failure: one try, starting nothing; its reason again when nothing answers. */
  async reachAgain() {
    try {
      await this.dial();
    } catch (err) {
      if (!(err instanceof Error) || !['ENOENT', 'ECONNREFUSED', 'EAGAIN'].includes(err.code)) {
        if (err instanceof ToolscoreError) throw err;
        throw this.unavailable(err.message, err);
      }
      const first = this.firstUnavailable;
      throw new ConnectionError(
        'unavailable',
        `${first.message} (the first check of this process found no daemon; the later ones fail ` +
          'at once, and use a daemon again as soon as one answers)',
        this.socketPath,
      );
    }
    return this.hello();
  }

  async reach() {
    const deadline = nowMs() + this.connectTimeoutMs;
    let started = null;
    let spawned = false;
    let delay = 5;
    for (;;) {
      let reason;
      try {
        await this.dial();
        await this.hello();
        if (!(await this.replaceOtherBuild())) {
          if (spawned) this.startedOn = this.socketPath;
          return;
        }
        started = null; // it stops: start this build's daemon
        continue;
      } catch (err) {
        if (!(err instanceof Error) || !['ENOENT', 'ECONNREFUSED', 'EAGAIN'].includes(err.code)) {
          if (err instanceof ToolscoreError) throw err;
          throw this.unavailable(err.message, err);
        }
        reason = err.code === 'ENOENT' ? 'no socket (no daemon is running)' : 'connection refused';
      }
      if (this.autoStart && started === null) {
        started = this.spawnDaemon();
        spawned = true;
        if (started.error) throw this.unavailable(`${reason}; ${started.error}`);
      }
      // status 3: it lost the start to another daemon (maybe one still
      // stopping, whose socket goes away with it): start one again later
      if (started?.exited && started.status === 3) started = null;
      else if (started?.exited && started.status !== 0) {
        const line = started.line ? `: ${started.line}` : '';
        throw this.unavailable(`${reason}; toolscored exited with status ${started.status}${line}`);
      }
      if (nowMs() >= deadline) {
        const what = spawned ? 'toolscored was started but did not answer' : 'auto-start is off';
        throw this.unavailable(`${reason}; ${what} within ${this.connectTimeoutMs} ms`);
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 100);
    }
  }

  /**
   * Connected to a daemon of another build that a client started: ask it to
   * stop if it is idle (no run open, no other client), so that this
   * package's daemon starts in its place (docs/packaging.md). True when it
   * stops; a daemon in use answers in_use and is used as it is.
   */
  async replaceOtherBuild() {
    if (this.replaced || !this.autoStart || VERSION === null || !this.serverAutoStarted ||
        this.serverVersion === null || this.serverVersion === VERSION)
      return false;
    this.replaced = true;
    try {
      await this.send('stop', { if_idle: true });
    } catch {
      return false;
    }
    this.drop();
    return true;
  }

  spawnDaemon() {
    const found = findDaemon();
    if (found.error) return { error: found.error };
    const state = { exited: false, status: null, line: '' };
    let child;
    try {
      child = spawn(found.path, ['--socket', this.socketPath], {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        // a client of another build may replace it while it is idle
        env: { ...process.env, TOOLSCORED_AUTO_STARTED: '1' },
      });
    } catch (err) {
      return { error: `cannot start ${found.path}: ${err.message}` };
    }
    child.on('error', (err) => {
      state.exited = true;
      state.status = err.code ?? 'error';
      state.line = err.message;
    });
    child.on('exit', (code, signal) => {
      state.exited = true;
      state.status = code ?? signal;
    });
    child.stderr.on('data', (d) => {
      if (state.line.length < 512 && !state.line.includes('\n')) state.line += d.toString('utf8');
      state.line = state.line.split('\n')[0].slice(0, 512);
    });
    child.stderr.unref?.();
    child.unref();
    this.child = child;
    return state;
  }

  dial() {
    return new Promise((resolve, reject) => {
      let dirFd = -1;
      let target;
      try {
        ({ target, dirFd } = trustedTarget(this.socketPath));
      } catch (err) {
        reject(err);
        return;
      }
      const sock = net.createConnection({ path: target });
      const done = () => {
        if (dirFd >= 0) fs.closeSync(dirFd);
        dirFd = -1;
      };
      sock.once('error', (err) => {
        done();
        reject(err);
      });
      sock.once('connect', () => {
        done();
        sock.removeAllListeners('error');
        this.attach(sock);
        resolve();
      });
    });
  }

  attach(sock) {
    this.socket = sock;
    this.serverPid = 0; // its hello says
    this.chunks = [];
    this.buffered = 0;
    this.nextId = 1;
    sock.on('data', (chunk) => this.onData(chunk));
    sock.on('error', (err) => {
      this.lastError = err;
    });
    sock.on('close', () => this.onClose(sock));
  }

  async hello() {
    const r = await this.send('hello', { protocol: PROTOCOL, client: this.clientName, pid: process.pid });
    if (r === null || typeof r !== 'object' || r.protocol !== PROTOCOL)
      throw this.fail(new ConnectionError('bad_reply', 'hello reply without protocol 1', this.socketPath));
    if (Number.isSafeInteger(r.max_frame) && r.max_frame > 0) this.maxFrame = r.max_frame;
    this.server = r.server;
    this.serverPid = Number.isSafeInteger(r.pid) ? r.pid : 0;
    this.serverVersion = serverVersion(r);
    this.serverAutoStarted = r.auto_started === true;
    if (this.child) {
      this.child.stderr.destroy();
      this.child = null;
    }
  }

  /** The deadline of a reply to method, in ms (0: none). */
  deadlineFor(method) {
    if (this.deadlines === null) {
      if (this.timeoutMs !== undefined) {
        const ms = Math.max(0, Math.round(Number(this.timeoutMs) || 0));
        this.deadlines = { short: ms, long: ms };
      } else {
        this.deadlines = deadlinesFromEnv();
      }
    }
    return SHORT_METHODS.has(method) ? this.deadlines.short : this.deadlines.long;
  }

  /** No reply to method within ms: the connection is given up (a late
   * reply would be taken for the next request's). */
  timedOut(method, ms) {
    const pid = this.socket !== null && this.serverPid > 0 ? this.serverPid : lockPid(this.socketPath);
    const who = pid > 0 ? `pid ${pid}, ` : '';
    const kill = pid > 0 ? `, or kill ${pid}` : '';
    this.fail(
      new ConnectionError(
        'timeout',
        `toolscored (${who}socket ${this.socketPath}) did not answer ${method} within ${seconds(ms)}: it may be stopped (SIGSTOP), hung or overloaded; look at it with \`tsctl status\` and its log, restart it (\`tsctl stop\`${kill}), or set TOOLSCORE_TIMEOUT to the seconds to wait (0: no deadline)`,
        this.socketPath,
      ),
    );
  }

  send(method, params) {
    const sock = this.socket;
    if (sock === null)
      return Promise.reject(
        new ConnectionError('disconnected', `not connected to toolscored at ${this.socketPath}`, this.socketPath),
      );
    let deadline;
    try {
      deadline = this.deadlineFor(method);
    } catch (err) {
      return Promise.reject(err);
    }
    const id = this.nextId++;
    let frame;
    try {
      frame = encodeRequest(id, method, params);
    } catch (err) {
      return Promise.reject(new ToolscoreError('invalid_argument', `cannot encode ${method}: ${err.message}`));
    }
    if (frame.length - 4 > this.maxFrame)
      return Promise.reject(
        new ToolscoreError(
          'too_large',
          `${method} request of ${frame.length - 4} bytes is over the daemon's maximum frame of ${this.maxFrame} bytes`,
        ),
      );
    const idle = this.pending.size === 0;
    return new Promise((resolve, reject) => {
      let clock = null;
      if (deadline > 0) {
        clock = timer(() => this.timedOut(method, deadline), deadline);
        clock.unref(); // the socket holds the loop while a reply is awaited
      }
      this.pending.set(id, { resolve, reject, method, idle, clock });
      sock.ref();
      const flowing = sock.write(frame); // the header and payload: one write
      if (!flowing && this.drained === null) {
        this.drained = new Promise((done) => {
          const go = () => {
            sock.removeListener('drain', go);
            sock.removeListener('close', go);
            this.drained = null;
            done();
          };
          sock.once('drain', go);
          sock.once('close', go);
        });
      }
    });
  }

  onData(chunk) {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 4) {
      const n = this.peekLength();
      const limit = Math.max(DEFAULT_MAX_FRAME, this.maxFrame);
      if (n === 0 || n > limit) {
        this.fail(new ConnectionError('bad_reply', `reply frame of ${n} bytes (limit ${limit})`, this.socketPath));
        return;
      }
      if (this.buffered < 4 + n) return;
      this.take(4);
      const payload = this.take(n);
      let msg;
      try {
        msg = decodeValue(payload);
      } catch (err) {
        this.fail(new ConnectionError('bad_reply', `undecodable reply: ${err.message}`, this.socketPath));
        return;
      }
      if (!this.onReply(msg)) return;
    }
  }

  peekLength() {
    const first = this.chunks[0];
    const head = first.length >= 4 ? first : Buffer.concat(this.chunks, Math.min(this.buffered, 4));
    return head.readUInt32BE(0);
  }

  take(n) {
    this.buffered -= n;
    const first = this.chunks[0];
    if (first.length === n) return this.chunks.shift();
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const c = this.chunks[0];
      const k = Math.min(c.length, n - off);
      c.copy(out, off, 0, k);
      off += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    return out;
  }

  /** One decoded reply; false when the connection was given up. */
  onReply(msg) {
    const bad = (why) => {
      this.fail(new ConnectionError('bad_reply', `bad reply from toolscored: ${why}`, this.socketPath));
      return false;
    };
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.ok !== 'boolean')
      return bad('not a reply map with "ok"');
    let error = null;
    if (!msg.ok) {
      const e = msg.error;
      if (e === null || typeof e !== 'object' || typeof e.code !== 'string' || !CODE_RE.test(e.code))
        return bad('error without a valid code');
      const text = typeof e.message === 'string' ? e.message.replace(/[\x00-\x1f\x7f]/g, '?') : '';
      error = [e.code, text, typeof e.socket === 'string' ? e.socket : undefined];
    }
    if (msg.id === null || msg.id === undefined) {
      // a connection-level error: the server closes right after it
      this.fail(error ? new DaemonError(error[0], error[1], null) : new ConnectionError('bad_reply', 'ok reply without id', this.socketPath));
      return false;
    }
    const id = Number(msg.id);
    const p = this.pending.get(id);
    if (p === undefined || this.pending.keys().next().value !== id)
      return bad(`reply to request ${msg.id}, which is not the oldest outstanding`);
    this.pending.delete(id);
    if (p.clock !== null) clearTimeout(p.clock);
    if (this.pending.size === 0) this.socket?.unref();
    if (error) p.reject(new DaemonError(error[0], error[1], p.method, error[2]));
    else if (!('result' in msg)) p.reject(new ConnectionError('bad_reply', `ok reply to ${p.method} without result`, this.socketPath));
    else p.resolve(msg.result); // 64-bit integers in the safe range are numbers already
    this.settled();
    return true;
  }

  /** Give up the connection: every outstanding request fails with err. */
  fail(err) {
    const sock = this.socket;
    this.socket = null;
    this.ready = null;
    this.rejectAll(err);
    if (sock !== null) sock.destroy();
    return err;
  }

  rejectAll(err) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      if (p.clock !== null) clearTimeout(p.clock);
      p.reject(err);
    }
    this.settled();
  }

  onClose(sock) {
    if (this.socket !== sock) return;
    this.socket = null;
    this.ready = null;
    const n = this.pending.size;
    if (n > 0) {
      const why = this.lastError ? ` (${this.lastError.message})` : '';
      const err = new ConnectionError(
        'disconnected',
        `the connection to toolscored at ${this.socketPath} closed with ${n} request(s) outstanding${why}; their effects may or may not have happened`,
        this.socketPath,
      );
      const only = this.pending.values().next().value;
      err.retryable = n === 1 && only.idle && this.lastError?.code === 'EPIPE';
      this.rejectAll(err);
    }
    this.lastError = null;
  }
}
