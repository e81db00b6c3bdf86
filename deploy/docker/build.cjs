// Compiles services to JavaScript for production: services/<name>/dist/main.js (+ source map) per service, and a
// bundle per worker thread (src/**/<name>.worker.ts → dist/<name>.worker.js).
//   node deploy/docker/build.cjs [service...]      (default: every folder under services/)
// The workspace libraries (@cc/*) are consumed as TypeScript sources, so they are compiled into each
// service's bundle; third-party packages stay external and come from `pnpm deploy --prod` at run time.
// Types are checked by `tsc --noEmit` (./cc test, and the image build), not here.
const { readdirSync, rmSync, existsSync } = require('node:fs');
const { basename, resolve } = require('node:path');
const esbuild = require('esbuild');

const root = resolve(__dirname, '../..');
const wanted = process.argv.slice(2);
const services = wanted.length
  ? wanted
  : readdirSync(resolve(root, 'services'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(resolve(root, 'services', d.name, 'src/main.ts')))
      .map((d) => d.name);

/** Bare imports other than the workspace's own packages are left to node_modules. */
const externalThirdParty = {
  name: 'external-third-party',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cc/') ? undefined : { path: args.path, external: true },
    );
  },
};

async function buildService(name) {
  const dir = resolve(root, 'services', name);
  if (!existsSync(resolve(dir, 'src/main.ts'))) throw new Error(`no such service: services/${name}/src/main.ts`);
  rmSync(resolve(dir, 'dist'), { recursive: true, force: true });
  const t0 = Date.now();
  // Worker threads (src/**/<name>.worker.ts) are bundles of their own beside main.js: dist/<name>.worker.js.
  const entryPoints = { main: resolve(dir, 'src/main.ts') };
  for (const f of readdirSync(resolve(dir, 'src'), { recursive: true })) {
    if (!String(f).endsWith('.worker.ts')) continue;
    const entry = basename(String(f), '.ts');
    // Bundles are named by file name alone (the service loads dist/<name>.worker.js): two of one name would
    // overwrite each other.
    if (entryPoints[entry])
      throw new Error(`services/${name}: two worker files named ${entry}.ts; worker file names must be unique`);
    entryPoints[entry] = resolve(dir, 'src', String(f));
  }
  await esbuild.build({
    entryPoints,
    outdir: resolve(dir, 'dist'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    logLevel: 'warning',
    plugins: [externalThirdParty],
  });
  const built = Object.keys(entryPoints).map((e) => `dist/${e}.js`);
  process.stdout.write(`built services/${name}/{${built.join(',')}} in ${Date.now() - t0} ms\n`);
}

(async () => {
  for (const name of services) await buildService(name);
})().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
