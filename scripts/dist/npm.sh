#!/bin/sh
# make dist-npm: the npm tarballs (docs/packaging.md) in OUTDIR, packed from
# copies staged in WORK:
#   toolscored-VERSION.tgz       shims/node with its CommonJS build, the
#                                version written into package.json and
#                                src/version.js, and an optionalDependency on
#                                the platform package at exactly VERSION
#   toolscored-PLATFORM-VERSION.tgz   bin/toolscored and bin/tsctl, with the
#                                os, cpu and libc fields of this machine
# The devDependencies of shims/node (esbuild, for the CommonJS build) come
# from its package-lock.json (npm ci), as for the tests.
# Usage: scripts/dist/npm.sh OUTDIR VERSION WORK DAEMON TSCTL
set -eu
out=$1
version=$2
work=$3
daemon=$4
tsctl=$5
command -v node >/dev/null && command -v npm >/dev/null || {
	echo "make dist-npm: node and npm are needed (scripts/deps.sh dist installs them)" >&2
	exit 1
}
sh scripts/node_deps.sh package

case "$(uname -m)" in
x86_64) cpu=x64 ;;
aarch64) cpu=arm64 ;;
*) cpu=$(uname -m) ;;
esac
if ldd --version 2>&1 | grep -qi musl; then libc=musl; else libc=glibc; fi
[ "$libc" = glibc ] && abi=gnu || abi=musl
platform=toolscored-linux-$cpu-$abi

rm -rf "$work"
mkdir -p "$work/main" "$work/platform/bin" "$out"
out_abs=$(cd "$out" && pwd)
cp -R shims/node/package.json shims/node/bin shims/node/src shims/node/types "$work/main/"
node - "$work/main" "$version" "$platform" <<'JS'
const fs = require('fs');
const path = require('path');
const [dir, version, platform] = process.argv.slice(2);
const file = path.join(dir, 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.version = version;
pkg.optionalDependencies = { [platform]: version };
delete pkg.devDependencies;
delete pkg.scripts; // the CommonJS build is made here; nothing runs at pack or install time
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
const vfile = path.join(dir, 'src', 'version.js');
const text = fs.readFileSync(vfile, 'utf8');
const written = text.replace(/^export const VERSION = null;$/m, `export const VERSION = ${JSON.stringify(version)};`);
if (written === text) throw new Error(`${vfile}: no "export const VERSION = null;" line to write the version into`);
fs.writeFileSync(vfile, written);
JS
node shims/node/scripts/build-cjs.mjs "$work/main"

cp "$daemon" "$work/platform/bin/toolscored"
cp "$tsctl" "$work/platform/bin/tsctl"
chmod 755 "$work/platform/bin/toolscored" "$work/platform/bin/tsctl"
node - "$work/platform" "$version" "$platform" "$cpu" "$libc" <<'JS'
const fs = require('fs');
const path = require('path');
const [dir, version, name, cpu, libc] = process.argv.slice(2);
const main = JSON.parse(fs.readFileSync('shims/node/package.json', 'utf8'));
const pkg = {
  name,
  version,
  description: `The toolscored daemon and tsctl for ${name.replace('toolscored-', '')}: installed by the npm package toolscored`,
  license: main.license,
  os: ['linux'],
  cpu: [cpu],
  libc: [libc],
  files: ['bin'],
};
fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
fs.writeFileSync(path.join(dir, 'README.md'), `# ${name}\n\nThe \`toolscored\` daemon and \`tsctl\` executables (static, glibc only) of the npm package [toolscored](https://www.npmjs.com/package/toolscored), which depends on this one; install that one.\n`);
JS
for d in main platform; do
	name=$(cd "$work/$d" && npm pack --ignore-scripts --pack-destination "$out_abs" --loglevel=error)
	echo "$out/$name"
done
