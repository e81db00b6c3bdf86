import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

// Headless Chromium for the console scenario: Debian's `chromium` package, driven by playwright-core with its
// executablePath. Nothing here downloads a browser build (playwright-core has no download step of its own).

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function found(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : undefined;
  return candidates.find((p) => existsSync(p));
}

/**
 * The Chromium executable: `CHROMIUM_PATH`, else a system one; when none is installed and this runs as root,
 * `apt-get install -y chromium` (Debian's package); otherwise a clear error saying what to install.
 */
export function chromiumPath(): string {
  const have = found();
  if (have) return have;
  if (process.getuid?.() !== 0) {
    throw new Error(
      "The console scenario needs Chromium: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH",
    );
  }
  process.stdout.write('[e2e] installing chromium (apt-get install -y chromium)\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  } catch {
    // A fresh machine's package lists may be missing or stale.
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  }
  const installed = found();
  if (!installed) throw new Error('apt-get installed chromium, but no chromium executable was found');
  return installed;
}

/** Launches headless Chromium (no sandbox: CI runs as root, where Chromium's sandbox refuses to start). */
export async function launchChromium(): Promise<Browser> {
  // Loaded here so the other e2e files never load playwright-core.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

/** An axe-core violation, as the console scenario reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (from npm) in the page and returns its serious and critical violations. The script is evaluated
 * through the DevTools protocol, which the page's CSP does not govern, so the console needs no inline script.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<unknown> } }).axe;
    const r = (await axe.run(document, { resultTypes: ['violations'] })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    };
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
