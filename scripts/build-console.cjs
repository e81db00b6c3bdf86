// Builds the operator console (console/ → console/dist, served by the gateway at /console) with Vite, only when
// its inputs changed: a SHA-256 of console/index.html, package.json, src/** and the lockfile is kept in
// console/dist/.input-hash. Run by ./cc start, ./cc test, the e2e setup and the gateway image.
//   node scripts/build-console.cjs [--force]
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, writeFileSync, statSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = resolve(__dirname, '..');
const dir = join(root, 'console');
const dist = join(dir, 'dist');
const stamp = join(dist, '.input-hash');

function files(p) {
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p)
    .sort()
    .flatMap((name) => files(join(p, name)));
}

function inputHash() {
  const h = createHash('sha256');
  const inputs = [
    join(dir, 'index.html'),
    join(dir, 'package.json'),
    ...files(join(dir, 'src')),
    join(root, 'pnpm-lock.yaml'),
  ];
  for (const f of inputs) {
    h.update(relative(root, f));
    h.update('\0');
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

const hash = inputHash();
if (!process.argv.includes('--force') && existsSync(join(dist, 'index.html')) && existsSync(stamp)) {
  if (readFileSync(stamp, 'utf8').trim() === hash) {
    process.stdout.write('console: up to date (console/dist)\n');
    process.exit(0);
  }
}
// The CLI is not in vite's exports map: find it next to the package's manifest.
const vite = join(dirname(require.resolve('vite/package.json', { paths: [dir] })), 'bin/vite.js');
const t0 = Date.now();
const r = spawnSync(
  process.execPath,
  [vite, 'build', '--base=/console/', '--outDir', 'dist', '--emptyOutDir', '--logLevel', 'warn'],
  { cwd: dir, stdio: 'inherit' },
);
if (r.status !== 0) {
  process.stderr.write(`console: vite build failed (exit ${r.status ?? r.signal})\n`);
  process.exit(1);
}
writeFileSync(stamp, `${hash}\n`);
process.stdout.write(`console: built console/dist in ${Date.now() - t0} ms\n`);
