// Trust before talking (docs/security.md): the socket's directory must be
// the user's own (or root's) with no group or other access, opened without
// following a symbolic link, and the socket file in it must be the user's
// or root's; a socket failing this is refused before a byte is written.
// Node cannot read the peer's credentials (SO_PEERCRED) as the C client
// does; the socket file's owner, read through the very directory
// descriptor the connection goes through, stands in for them: in a
// directory only the user and root can write, nobody else can have bound
// or replaced it.

import fs from 'node:fs';
import path from 'node:path';
import { ConnectionError } from './errors.js';

const SUN_PATH_MAX = 107;

/** "uid N (name)", the name read from /etc/passwd when it has one. */
export function describeUid(uid) {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f.length > 2 && Number(f[2]) === uid && f[0] !== '') return `uid ${uid} (${f[0]})`;
    }
  } catch {
    /* no name */
  }
  return `uid ${uid}`;
}

function missing(socketPath) {
  const err = new Error(`no daemon answers at ${socketPath}: no such file or directory`);
  err.code = 'ENOENT';
  return err;
}

function untrusted(socketPath, why) {
  return new ConnectionError(
    'untrusted',
    `refusing the socket ${socketPath} without talking to it: ${why}; another user may have put it there ` +
      '(remove it, or set XDG_RUNTIME_DIR or TOOLSCORE_SOCKET to a directory of yours)',
    socketPath,
  );
}

function ownerOk(uid) {
  return uid === process.geteuid() || uid === 0;
}

/**
 * Open the directory of socketPath and check it and the socket file. Returns
 * { target, dirFd }: the address to connect to (through the checked
 * descriptor, /proc/self/fd/N/name) and the descriptor to close once
 * connected. Throws an Error with code ENOENT when the directory or the
 * socket is missing (nothing to talk to: start a daemon), a
 * ConnectionError `untrusted` when another user could have put it there.
 */
export function trustedTarget(socketPath) {
  const dir = path.dirname(socketPath);
  const base = path.basename(socketPath);
  let dirFd;
  try {
    dirFd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    if (err.code === 'ENOENT') throw missing(socketPath);
    if (err.code === 'ELOOP' || err.code === 'ENOTDIR') {
      let link = null;
      try {
        link = fs.lstatSync(dir);
      } catch {
        throw missing(socketPath);
      }
      if (link.isSymbolicLink())
        throw untrusted(
          socketPath,
          `socket directory ${dir} is a symbolic link (owned by ${describeUid(link.uid)}); it must be the directory itself`,
        );
    }
    throw err;
  }
  try {
    const st = fs.fstatSync(dirFd);
    const target = `/proc/self/fd/${dirFd}/${base}`;
    let sock = null;
    try {
      sock = fs.lstatSync(target);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    if (!ownerOk(st.uid) || (st.mode & 0o077) !== 0) {
      if (sock === null) throw missing(socketPath);
      const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
      throw untrusted(
        socketPath,
        `socket directory ${dir} must be a directory owned by ${describeUid(process.geteuid())} or root with no ` +
          `group or other access, mode 0700 (it is owned by ${describeUid(st.uid)}, mode ${mode})`,
      );
    }
    if (sock === null) throw missing(socketPath);
    if (!ownerOk(sock.uid))
      throw untrusted(socketPath, `the socket belongs to ${describeUid(sock.uid)}, not to you or root`);
    if (Buffer.byteLength(target) <= SUN_PATH_MAX) return { target, dirFd };
    if (Buffer.byteLength(socketPath) <= SUN_PATH_MAX) return { target: socketPath, dirFd };
    throw new ConnectionError(
      'unavailable',
      `toolscored is not reachable at ${socketPath}: socket file name is too long (the limit is ${SUN_PATH_MAX} bytes)`,
      socketPath,
    );
  } catch (err) {
    fs.closeSync(dirFd);
    throw err;
  }
}
