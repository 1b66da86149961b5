import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ciFromEnv, truthy, updateFromEnv } from '../src/env.js';
import { defaultSocketPath, resolveStore } from '../src/paths.js';
import { tempDir } from './helpers.js';

test('CI is on when set and non-empty, whatever the value', () => {
  assert.equal(ciFromEnv({ CI: 'false' }), true);
  assert.equal(ciFromEnv({ CI: '0' }), true);
  assert.equal(ciFromEnv({ CI: '' }), false);
  assert.equal(ciFromEnv({}), false);
});

test('TOOLSCORE_RECORD_UPDATE: anything but empty, 0, false, no (trimmed, any case)', () => {
  for (const v of ['1', 'yes', 'TRUE', ' on '])
    assert.equal(updateFromEnv({ TOOLSCORE_RECORD_UPDATE: v }), true, v);
  for (const v of ['', ' ', '0', 'False', ' NO ', '\u00a0no\u2003', undefined])
    assert.equal(truthy(v), false, String(v));
});

test('socket path: TOOLSCORE_SOCKET, else XDG_RUNTIME_DIR when absolute, else /tmp/toolscore-<uid>', () => {
  const uid = os.userInfo().uid;
  assert.equal(defaultSocketPath({ TOOLSCORE_SOCKET: '/x/s.sock', XDG_RUNTIME_DIR: '/run/u' }), '/x/s.sock');
  assert.equal(defaultSocketPath({ TOOLSCORE_SOCKET: '', XDG_RUNTIME_DIR: '/run/u' }), '/run/u/toolscore/toolscored.sock');
  assert.equal(defaultSocketPath({ XDG_RUNTIME_DIR: 'relative' }), `/tmp/toolscore-${uid}/toolscored.sock`);
  assert.equal(defaultSocketPath({}), `/tmp/toolscore-${uid}/toolscored.sock`);
});

test('store: realpath of the deepest existing ancestor, then . and .. applied', () => {
  const dir = fs.realpathSync(tempDir());
  fs.mkdirSync(path.join(dir, 'real', 'deep'), { recursive: true });
  fs.symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
  assert.equal(resolveStore('link/snaps', dir), path.join(dir, 'real', 'snaps'));
  assert.equal(resolveStore('link/deep/../x/./y', dir), path.join(dir, 'real', 'x', 'y'));
  // a symlink followed by .. goes to the link target's parent, as the kernel would
  assert.equal(resolveStore(path.join(dir, 'link', 'deep', '..', '..', 'z')), path.join(dir, 'z'));
  assert.equal(resolveStore('missing/a/../b', dir), path.join(dir, 'missing', 'b'));
  assert.equal(resolveStore('/'), '/');
  fs.rmSync(dir, { recursive: true, force: true });
});
