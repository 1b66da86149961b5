// The executables of the platform package (docs/packaging.md): the npm
// package toolscored-<os>-<arch>[-gnu|-musl] that npm installs beside this
// one as an optional dependency, holding bin/toolscored and bin/tsctl. Its
// version must be this package's own, build metadata included: npm ignores
// build metadata when it matches the exact version of optionalDependencies,
// so a platform package of another build would be taken silently.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from './version.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const requireHere = createRequire(import.meta.url);
/** This package's own directory (holding package.json and bin/). */
export const PACKAGE_ROOT = fs.existsSync(path.join(here, '..', 'package.json'))
  ? path.resolve(here, '..')
  : path.resolve(here, '..', '..'); // dist/cjs/

let platformName = null;

/** The platform package for this machine, e.g. toolscored-linux-x64-gnu. */
export function platformPackage() {
  if (platformName === null) {
    let libc = '';
    if (process.platform === 'linux') {
      // glibc reports its version; musl does not (as detect-libc tells them apart)
      const header = process.report?.getReport?.()?.header;
      libc = header?.glibcVersionRuntime ? '-gnu' : '-musl';
    }
    platformName = `toolscored-${process.platform}-${process.arch}${libc}`;
  }
  return platformName;
}

/** {path} of the platform package's executable name, or {error} saying why not. */
export function packagedExecutable(name) {
  const pkg = platformPackage();
  let manifest;
  try {
    manifest = requireHere.resolve(`${pkg}/package.json`);
  } catch {
    return {
      error: `the platform package ${pkg} is not installed (npm installs it with toolscored, as an optional dependency, unless optional dependencies are omitted or no package exists for this platform)`,
    };
  }
  let version;
  try {
    version = JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
  } catch (err) {
    return { error: `${manifest} cannot be read: ${err.message}` };
  }
  if (VERSION !== null && version !== VERSION)
    return { error: `${pkg} ${version} is another build than toolscored ${VERSION} (install both tarballs of one make dist)` };
  const file = path.join(path.dirname(manifest), 'bin', name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return { path: file };
  } catch (err) {
    return { error: err.code === 'ENOENT' ? `${file} does not exist` : `${file} is not executable` };
  }
}

/**
 * name found on PATH, skipping this package's own bin/ wrapper of that name
 * (npm puts node_modules/.bin on PATH: a wrapper must not find itself).
 */
export function onPath(name, env = process.env) {
  let own = null;
  try {
    own = fs.realpathSync(path.join(PACKAGE_ROOT, 'bin', `${name}.js`));
  } catch {
    /* no wrapper */
  }
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (own !== null && fs.realpathSync(candidate) === own) continue;
      return candidate;
    } catch {
      /* next */
    }
  }
  return null;
}
