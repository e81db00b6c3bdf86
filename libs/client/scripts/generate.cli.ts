// `pnpm --filter @cc/client generate`: rewrites src/generated from the contracts (and removes stale files there).
// `--check [dir]`: writes nothing; exits 1 listing the files of dir (default src/generated) that differ from what the
// contracts generate now. Run in a child process by the staleness test, since openapi-typescript loads ESM-only
// packages that jest's CommonJS runtime cannot require.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { generatedDir, generateSources } from './generate';

const root = join(__dirname, '..');

async function main(): Promise<void> {
  const files = await generateSources();
  const args = process.argv.slice(2);
  if (args[0] === '--check') {
    const dir = resolve(args[1] ?? join(root, generatedDir));
    const expected = new Map([...files].map(([p, text]) => [basename(p), text]));
    const present = existsSync(dir) ? readdirSync(dir) : [];
    const stale = [
      ...[...expected]
        .filter(([name, text]) => !existsSync(join(dir, name)) || readFileSync(join(dir, name), 'utf8') !== text)
        .map(([n]) => n),
      ...present.filter((name) => !expected.has(name)),
    ];
    if (stale.length) {
      process.stderr.write(
        `stale generated SDK files (run \`pnpm --filter @cc/client generate\`): ${stale.sort().join(', ')}\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`${expected.size} generated files up to date\n`);
    return;
  }
  const dir = join(root, generatedDir);
  mkdirSync(dir, { recursive: true });
  const keep = new Set([...files.keys()].map((p) => join(root, p)));
  for (const f of readdirSync(dir)) {
    if (!keep.has(join(dir, f))) rmSync(join(dir, f));
  }
  for (const [path, text] of files) writeFileSync(join(root, path), text);
  process.stdout.write(`generated ${files.size} files in ${relative(process.cwd(), dir) || '.'}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
