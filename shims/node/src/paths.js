// Paths of docs/protocol.md: the default socket, and a snapshot root
// resolved to the absolute, symlink-resolved path that names a store on the
// wire (realpath of the deepest existing ancestor, then the remaining
// components with `.` and `..` applied, so a root not created yet works).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envValue } from './env.js';

/** TOOLSCORE_SOCKET, else $XDG_RUNTIME_DIR/toolscore/..., else /tmp/toolscore-<uid>/... */
export function defaultSocketPath(env = process.env) {
  const explicit = envValue('TOOLSCORE_SOCKET', env);
  if (explicit !== undefined) return explicit;
  const xdg = envValue('XDG_RUNTIME_DIR', env);
  if (xdg !== undefined && xdg.startsWith('/')) return `${xdg}/toolscore/toolscored.sock`;
  return `/tmp/toolscore-${os.userInfo().uid}/toolscored.sock`;
}

/** The store path for root (relative to base when not absolute). */
export function resolveStore(root, base = process.cwd()) {
  let p = root.startsWith('/') ? root : `${base.replace(/\/+$/, '')}/${root}`;
  const rest = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(p);
      return applyComponents(real, rest);
    } catch (err) {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') throw err;
      const cut = p.lastIndexOf('/');
      if (cut <= 0) return applyComponents('/', [p.slice(cut + 1), ...rest].filter(Boolean));
      rest.unshift(p.slice(cut + 1));
      p = p.slice(0, cut);
    }
  }
}

function applyComponents(real, rest) {
  let out = real;
  for (const c of rest) {
    if (c === '' || c === '.') continue;
    out = c === '..' ? path.dirname(out) : out === '/' ? `/${c}` : `${out}/${c}`;
  }
  return out;
}
