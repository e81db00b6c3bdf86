import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The layer rules (.dependency-cruiser.cjs) run on a fixture service whose domain imports express, mongoose and the
// @cc/kit barrel: each must be reported, the allowed imports must not. `./cc test` runs the same rules on the real
// tree ("layer rules" step); this test shows they can fail.
const root = resolve(__dirname, '../..');
const fixture = join(__dirname, 'layer-rules.fixture');

/** Links each package of `from` into a new `to` folder, but those named in `skip`. */
function linkPackages(from: string, to: string, skip: string[]): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    if (!skip.includes(name) && !name.startsWith('.')) symlinkSync(join(from, name), join(to, name), 'dir');
  }
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

/**
 * Copies the fixture to a temporary folder wired to real packages and cruises it with the project's rules. Every
 * module the cruise follows must lie inside that folder, so it holds a copy of the real @cc/kit (whose own
 * packages are linked, all but the workspace ones: they stay unresolved and unfollowed).
 */
function cruiseFixture(): { status: number | null; violations: Violation[] } {
  const dir = mkdtempSync(join(tmpdir(), 'layer-rules-'));
  try {
    cpSync(fixture, dir, { recursive: true });
    const kit = join(dir, 'libs/kit');
    cpSync(join(root, 'libs/kit/package.json'), join(kit, 'package.json'));
    cpSync(join(root, 'libs/kit/src'), join(kit, 'src'), { recursive: true });
    linkPackages(join(root, 'libs/kit/node_modules'), join(kit, 'node_modules'), ['@cc']);
    const demoModules = join(dir, 'services/demo/node_modules');
    linkPackages(join(root, 'services/gateway/node_modules'), demoModules, ['@cc']);
    mkdirSync(join(demoModules, '@cc'));
    symlinkSync(kit, join(demoModules, '@cc/kit'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: join(root, 'tsconfig.base.json'), include: ['services', 'libs'] }),
    );
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'services',
        '--config',
        join(root, '.dependency-cruiser.cjs'),
        '--output-type',
        'json',
      ],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`depcruise printed nothing: ${run.stderr}`);
    const out = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
    return { status: run.status, violations: out.summary.violations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('layer rules', () => {
  const { status, violations } = cruiseFixture();
  const ruleOf = (file: string) =>
    new Set(violations.filter((v) => v.from === `services/demo/src/domain/${file}`).map((v) => v.rule.name));

  it('fail the check when a domain file imports a framework', () => {
    // With the default (err) reporter, as `./cc test` runs it, depcruise exits non-zero on any error-severity
    // violation; the json reporter used here exits 0 and lists them.
    expect(status).toBe(0);
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.every((v) => v.rule.severity === 'error')).toBe(true);
  });

  it('report express, a type-only express import and mongoose in domain code', () => {
    expect(ruleOf('web.ts')).toContain('domain-is-pure');
    expect(ruleOf('request-type.ts')).toContain('domain-is-pure');
    expect(ruleOf('store.ts')).toContain('domain-is-pure');
    const targets = violations.filter((v) => v.rule.name === 'domain-is-pure').map((v) => v.to);
    expect(targets).toEqual(expect.arrayContaining([expect.stringMatching(/node_modules\/express\//)]));
    expect(targets).toEqual(expect.arrayContaining([expect.stringMatching(/node_modules\/mongoose\//)]));
  });

  it('report a barrel that drags express and pino into domain code', () => {
    expect(ruleOf('barrel.ts')).toEqual(new Set(['domain-reaches-no-framework']));
    const reached = violations.filter((v) => v.from === 'services/demo/src/domain/barrel.ts').map((v) => v.to);
    expect(reached).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/node_modules\/express\//),
        expect.stringMatching(/node_modules\/pino\//),
      ]),
    );
  });

  it('allow @cc/kit/errors in domain code and express in the http layer', () => {
    expect(ruleOf('pure.ts').size).toBe(0);
    expect(violations.filter((v) => v.from.startsWith('services/demo/src/http/'))).toEqual([]);
  });
});
