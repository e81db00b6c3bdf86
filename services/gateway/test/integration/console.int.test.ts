import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleCsp, locateConsole } from '../../src/http/console.handler';
import { startGateway, type TestGateway } from './helpers';

// The operator console's static files through the real gateway: the page with a self-only CSP, hashed assets,
// and 404/405 problems for anything else, without a token.
describe('gateway /console', () => {
  let gw: TestGateway;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cc-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/console/assets/app-1.js"></script>',
    );
    writeFileSync(join(dir, 'assets/app-1.js'), 'console.log(1)');
    gw = await startGateway({ CONSOLE_DIR: dir });
  });

  afterAll(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page at /console and /console/ with the CSP allowing only self and no caching', async () => {
    for (const path of ['/console', '/console/']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toBe(consoleCsp);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).toContain('/console/assets/app-1.js');
    }
    expect(consoleCsp).toContain("script-src 'self'");
    expect(consoleCsp).not.toContain('unsafe-inline');
  });

  it('serves hashed assets as immutable JavaScript', async () => {
    const res = await fetch(`${gw.url}/console/assets/app-1.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toBe('console.log(1)');
  });

  it('answers 404 problem+json for unknown files and 405 for other methods', async () => {
    const missing = await fetch(`${gw.url}/console/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${gw.url}/console/other`)).status).toBe(404);
    const post = await fetch(`${gw.url}/console`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('finds console/dist above the gateway when CONSOLE_DIR is not set, and nothing when it is not built', () => {
    const root = mkdtempSync(join(tmpdir(), 'cc-console-root-'));
    try {
      mkdirSync(join(root, 'console/dist'), { recursive: true });
      mkdirSync(join(root, 'services/gateway/dist'), { recursive: true });
      expect(locateConsole('', join(root, 'services/gateway/dist'))).toBeUndefined();
      writeFileSync(join(root, 'console/dist/index.html'), '<!doctype html>');
      expect(locateConsole('', join(root, 'services/gateway/dist'))).toBe(join(root, 'console/dist'));
      expect(locateConsole(join(root, 'elsewhere'))).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
