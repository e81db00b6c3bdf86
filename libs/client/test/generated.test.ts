import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { operationScopes } from '../scripts/operation-scopes';

const root = join(__dirname, '..');
const run = promisify(execFile);

/** Runs the generator's check mode in its own node (openapi-typescript loads ESM-only packages jest cannot). */
async function check(dir?: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/generate.cli.ts', '--check', ...(dir ? [dir] : [])],
      {
        cwd: root,
      },
    );
    return { code: 0, out: r.stdout };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, out: e.stderr ?? '' };
  }
}

describe('generated SDK sources', () => {
  it('match what the contracts generate now (run `pnpm --filter @cc/client generate` after a contract change)', async () => {
    const r = await check();
    expect(r).toEqual({ code: 0, out: expect.stringMatching(/generated files up to date/) });
  });

  it('the check names a changed, a missing and an extra file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-client-gen-'));
    try {
      cpSync(join(root, 'src/generated'), dir, { recursive: true });
      writeFileSync(join(dir, 'statistics.ts'), '// edited by hand\n');
      rmSync(join(dir, 'auth.ts'));
      writeFileSync(join(dir, 'old-api.ts'), '');
      const r = await check(dir);
      expect(r.code).toBe(1);
      expect(r.out).toContain('auth.ts, old-api.ts, statistics.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the scope of an operation from its own security, else from the document', () => {
    const scopes = operationScopes({
      security: [{ oauth2: ['admin'] }],
      paths: {
        '/a': { get: {}, post: { security: [{ oauth2: ['stats'] }, { oauth2: ['admin'] }] } },
        '/public': { get: { security: [] } },
      },
    });
    expect(scopes).toEqual({ 'GET /a': ['admin'], 'POST /a': ['stats', 'admin'] });
  });
});
