import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AxeViolation, launchChromium, seriousAxeViolations } from '../src/browser';
import { ContactCenter } from '../src/contact-center.scenario';
import { type Credentials, call, expectStatus, tokenFor } from '../src/gateway.client';
import { gatewayUrl, root } from '../src/suite';
import { until } from '../src/until';

// The operator console in headless Chromium against the running suite: sign in with an API client, watch a call
// placed through the API wait in the live queue and move to an agent, see its notification delivered, then the
// providers, the summaries chart, the record's timeline and the call's analysis. Every page is checked with
// axe-core (zero serious or critical violations) and saved as a screenshot under .test-results/console/.

const shots = resolve(root, '.test-results/console');
const uiTimeoutMs = 120_000;
const fixtures = resolve(root, 'services/analysis/test/fixtures');

let cc: ContactCenter;
let consoleClient: Credentials;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let interactionId = '';
/** Uncaught script errors and Content-Security-Policy refusals in the page. */
const pageErrors: string[] = [];
const axeByPage: Record<string, AxeViolation[]> = {};

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  cc = await ContactCenter.setup('console');
  await cc.register({ release: 1, hold: 1 });
  await cc.ok('admin', 'PATCH', '/admin/account/feature-flags', 200, { agentSummaries: true });
  // The console's own client: the scopes its pages read with.
  consoleClient = await cc.ok<Credentials>('admin', 'POST', '/admin/clients', 201, {
    name: 'Operator console',
    scopes: ['admin', 'stats', 'interaction-content:read'],
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  page.on('console', (m) => {
    // Failed requests are logged as console errors too (a 404 of /events/stream where the gateway serves none):
    // what counts here is a policy refusal.
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) pageErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await cc?.close();
});

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: resolve(shots, `${name}.png`) });
}

async function audit(name: string): Promise<void> {
  axeByPage[name] = await seriousAxeViolations(page);
  expect([name, axeByPage[name]]).toEqual([name, []]);
}

async function open(pageName: string): Promise<void> {
  await page.getByRole('link', { name: pageName, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: pageName }).waitFor();
}

describe('operator console in Chromium', () => {
  it('serves the sign-in page and signs in with the client credentials (kept out of web storage)', async () => {
    await page.goto(`${gatewayUrl}/console`);
    await page.getByLabel('Client id').fill(consoleClient.clientId);
    await page.getByLabel('Client secret').fill(consoleClient.clientSecret);
    await screenshot('sign-in');
    await audit('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Live' }).waitFor();
    // Live once the snapshot is read and the stream followed: what an operator sees before trusting the page.
    await page.getByText('Updated from the event stream', { exact: false }).waitFor({ timeout: uiTimeoutMs });
    const storage = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(storage).not.toContain(consoleClient.clientSecret);
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length)).toBe(0);
  });

  it('shows a call placed through the API waiting in the live queue of its route', async () => {
    const [result] = await cc.invoke([
      {
        requestId: 'console-call',
        externalId: 'case-console',
        route: cc.route,
        routingdata: { interactiontype: 'live', skills: [{ name: 'English' }] },
      },
    ]);
    interactionId = String(result?.interactionId);
    const queue = page.locator(`[data-queue="${cc.route}"]`);
    await until(async () => ((await queue.getAttribute('data-waiting').catch(() => null)) === '1' ? true : undefined), {
      timeoutMs: uiTimeoutMs,
      intervalMs: 250,
      what: `the call waiting in queue ${cc.route} on the Live page`,
    });
    // This gateway serves GET /events/stream: the page follows it (it would poll the REST APIs otherwise).
    expect(await page.locator('p.status').textContent()).toContain('Updated from the event stream');
    await screenshot('live-waiting');
  }, 180_000);

  it('moves the call to the agent who accepts it, and shows its AssignToAgent notification delivered', async () => {
    await cc.presence(cc.alice, 'Ready');
    // An offer can end between reading and accepting it (seen once: 404 "no offer ringing"; routing offers the
    // call again): accept the one ringing now, until the deadline.
    await until(
      async () => {
        const offer = await cc.offerOf(cc.alice, interactionId);
        const res = await cc.tenant.api('agent', {
          method: 'POST',
          path: `/agent-desktop/agents/${cc.alice.agentId}/offers/${offer.offerId}/accept`,
        });
        if (res.status === 404) return undefined;
        return expectStatus(res, 200, 'accept');
      },
      { timeoutMs: uiTimeoutMs, intervalMs: 500, what: `${cc.alice.username} accepting the call` },
    );
    const alice = page.locator(`[data-agent="${cc.alice.username}"]`);
    await until(
      async () => ((await alice.getAttribute('data-interactions').catch(() => null)) === '1' ? true : undefined),
      { timeoutMs: uiTimeoutMs, intervalMs: 250, what: `${cc.alice.username} holding the call on the Live page` },
    );
    expect(await page.locator(`[data-queue="${cc.route}"]`).getAttribute('data-waiting')).toBe('0');
    const note = page.locator(`[data-delivery="${interactionId}"][data-notification="AssignToAgent"]`);
    await until(async () => ((await note.textContent().catch(() => null)) === 'delivered' ? true : undefined), {
      timeoutMs: uiTimeoutMs,
      intervalMs: 250,
      what: 'the AssignToAgent notification delivered on the Live page',
    });
    await screenshot('live');
    await audit('live');
  }, 180_000);

  it('lists the provider with its breaker and its deliveries with attempts', async () => {
    await open('Providers');
    await page.locator(`[data-breaker="${cc.provider}"]`).waitFor();
    expect(await page.locator(`[data-breaker="${cc.provider}"]`).textContent()).toContain('closed');
    await page.locator('#deliveries').getByText(interactionId).first().waitFor();
    await screenshot('providers');
    await audit('providers');
  });

  it('opens the summaries chart with a bar of the agent who took the call', async () => {
    await open('Workforce');
    const chart = page.locator(`[data-agent-chart="${cc.alice.username}"]`);
    // The agent's chart can appear before the summaries service has aggregated the call (no bars yet): wait
    // for a bar, asking again as a supervisor would.
    await until(
      async () => {
        if ((await chart.count()) && (await chart.locator('rect').count()) > 0) return true;
        await page.getByRole('button', { name: 'Show' }).click();
        await page.waitForTimeout(1000);
        return undefined;
      },
      { timeoutMs: uiTimeoutMs, intervalMs: 1000, what: `the summaries chart of ${cc.alice.username}` },
    );
    expect(await chart.locator('rect').count()).toBeGreaterThan(0);
    await screenshot('workforce');
    await audit('workforce');
  }, 180_000);

  it("shows the call's record with its channels and events as a timeline", async () => {
    await open('Statistics');
    const link = page.locator(`[data-record="${interactionId}"]`);
    await until(
      async () => {
        if (await link.count()) return true;
        await page.getByRole('button', { name: 'Show' }).click();
        await page.waitForTimeout(1000);
        return undefined;
      },
      // Statistics builds the record from Kafka: on a loaded machine that has taken minutes.
      { timeoutMs: 240_000, intervalMs: 1000, what: 'the call in the statistics records' },
    );
    await link.click();
    await page.getByRole('heading', { name: `Timeline of ${interactionId}` }).waitFor();
    expect(await page.locator('svg.timeline rect').count()).toBeGreaterThan(0);
    await screenshot('statistics');
    await audit('statistics');
  }, 300_000);

  it("shows a recorded call's time split, categories and transcript by speaker", async () => {
    const calls = JSON.parse(readFileSync(resolve(fixtures, 'calls.json'), 'utf8')) as { file: string }[];
    const writer = await cc.ok<Credentials>('admin', 'POST', '/admin/clients', 201, {
      name: 'Recorder',
      scopes: ['interaction-content:write'],
    });
    // The upload is an idempotent PUT: retried while a loaded analysis service answers 504 to the gateway.
    await until(
      async () => {
        const res = await call({
          method: 'PUT',
          path: `/conversation-analyzer/recordings/${interactionId}`,
          token: await tokenFor(writer, 'interaction-content:write'),
          body: readFileSync(resolve(fixtures, (calls[0] as { file: string }).file)),
          contentType: 'audio/wav',
        });
        return res.status === 504 ? undefined : expectStatus(res, 202, 'recording upload');
      },
      { timeoutMs: 120_000, intervalMs: 1000, what: 'the recording upload' },
    );
    // From the record's timeline (the previous step) to the call's analysis.
    await page.getByRole('link', { name: 'Analysis of this call' }).click();
    await page.getByRole('heading', { level: 1, name: 'Analysis' }).waitFor();
    await until(
      async () => {
        if (await page.locator('svg.split-chart').count()) return true;
        await page.getByRole('button', { name: 'Show' }).click();
        await page.waitForTimeout(2000);
        return undefined;
      },
      { timeoutMs: 180_000, intervalMs: 1000, what: 'the analysis of the recorded call' },
    );
    await page.locator('.transcript .turn').first().waitFor();
    await screenshot('analysis');
    await audit('analysis');
  }, 420_000);

  it('is usable by keyboard: the skip link first, then the pages through the navigation', async () => {
    // Start from the top of the document, as after a page load.
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Providers') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Providers' }).waitFor();
    // Focus moves to the page's content.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('fits a narrow screen without horizontal scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await open('Live');
    await page.locator(`[data-queue="${cc.route}"]`).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot('live-narrow');
    await audit('live-narrow');
  });

  it('logged no script error and no Content-Security-Policy refusal', () => {
    expect(pageErrors).toEqual([]);
  });
});
