// Builds the CommonJS copy of the package (dist/cjs/) from the ESM sources
// in src/: every file transpiled on its own (not bundled, so CommonJS
// consumers share one copy of each module), with dist/cjs/package.json
// marking them CommonJS. The Vitest entries are ESM only and are skipped.
// `node scripts/build-cjs.mjs [ROOT]`: the package at ROOT (default: this
// one; make dist builds the copy it packs, docs/packaging.md).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] ?? path.resolve(here, '..'));
const out = path.join(root, 'dist', 'cjs');

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'vitest' ? [] : sources(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

fs.rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: sources(path.join(root, 'src')),
  outdir: out,
  outbase: path.join(root, 'src'),
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  bundle: false,
  logLevel: 'warning',
  // import.meta.url (the module's own location) as CommonJS knows it
  define: { 'import.meta.url': '__toolscoredModuleUrl' },
  banner: { js: 'const __toolscoredModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
fs.writeFileSync(path.join(out, 'package.json'), '{ "type": "commonjs" }\n');
