import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { eventually } from '@cc/testing';
import { type ApiResponse, createTenant, expectStatus, type Tenant } from '../src/gateway.client';
import { killService, restartService, root, waitReady } from '../src/suite';

// Recorded-call analysis end to end: the committed espeak-ng fixture calls are uploaded through the gateway,
// analysed from their audio by the running analysis service (WebRTC VAD, PocketSphinx), and read back in
// the three API versions; the breakdown must match each call's known timeline within 0.5 s per field.

interface FixtureCall {
  name: string;
  file: string;
  expectedBreakDown: Record<'agent' | 'customer' | 'silence' | 'crossTalk', number>;
  keyPhrases: string[];
}
interface Item {
  guid: string;
  status: string;
  confidence: string | null;
  callTimeBreakDown: Record<string, number>;
  transcript: string | null;
  language?: string | null;
  categories: { category: string; subcategories?: string[]; categories?: { name: string; matches: string }[] }[];
}

const fixtures = resolve(root, 'services/analysis/test/fixtures');
const calls = JSON.parse(readFileSync(resolve(fixtures, 'calls.json'), 'utf8')) as FixtureCall[];
const rules = {
  categories: [
    { category: 'Retention', subcategories: [{ name: 'Cancellation', phrases: ['cancel my subscription'] }] },
    { category: 'Greeting', subcategories: [{ name: 'Welcome', phrases: ['thank you for calling'] }] },
    {
      category: 'Technical',
      subcategories: [{ name: 'Connectivity', phrases: ['internet connection is not working'] }],
    },
  ],
};
const expectedSubcategories: Record<string, string[]> = {
  cancellation: ['Cancellation', 'Welcome'],
  connectivity: ['Connectivity'],
};
const vendor = (n: number) => ({ accept: `application/vnd.newvoicemedia.v${n}+json` });

let tenant: Tenant;
const guidOf = new Map<string, string>();

beforeAll(async () => {
  await waitReady();
  tenant = await createTenant('analysis', ['interaction-content:read', 'interaction-content:write']);
  expectStatus(
    await tenant.api('admin', { method: 'PUT', path: '/admin/analysis/categories', json: rules }),
    200,
    'category rules',
  );
});

const read = (guid: string, query = '', headers: Record<string, string> = {}) =>
  tenant.api('interaction-content:read', {
    method: 'GET',
    path: `/conversation-analyzer/interactions/${guid}${query}`,
    headers,
  }) as Promise<ApiResponse<Item>>;

describe('recorded-call analysis through the gateway', () => {
  it('uploads every fixture call; each shows processing, then its analysis from the audio', async () => {
    for (const call of calls) {
      const guid = randomUUID();
      guidOf.set(call.name, guid);
      const put = await tenant.api('interaction-content:write', {
        method: 'PUT',
        path: `/conversation-analyzer/recordings/${guid}`,
        body: readFileSync(resolve(fixtures, call.file)),
        contentType: 'audio/wav',
      });
      expect([call.name, put.status]).toEqual([call.name, 202]);
    }
    // The last upload waits behind the first in the queue: processing is visible.
    const last = guidOf.get((calls[calls.length - 1] as FixtureCall).name) as string;
    expect((await read(last)).body.status).toBe('processing');

    for (const call of calls) {
      const guid = guidOf.get(call.name) as string;
      const done = await eventually(
        async () => {
          const r = await read(guid, '?transcript=true');
          return r.body.status === 'processing' ? undefined : r;
        },
        { timeoutMs: 150_000, intervalMs: 500, what: `analysis of ${call.name}` },
      );
      const item = (done as ApiResponse<Item>).body;
      expect([call.name, item.status]).toEqual([call.name, 'processed']);
      for (const k of ['agent', 'customer', 'silence', 'crossTalk']) {
        const off = Math.abs((item.callTimeBreakDown[k] as number) - (call.expectedBreakDown[k as 'agent'] as number));
        expect([call.name, k, off <= 0.5]).toEqual([call.name, k, true]);
      }
      for (const phrase of call.keyPhrases)
        expect([call.name, item.transcript?.toLowerCase()]).toEqual([call.name, expect.stringContaining(phrase)]);
      const found = item.categories.flatMap((c) => (c.categories ?? []).map((s) => s.name));
      expect(found).toEqual(expect.arrayContaining(expectedSubcategories[call.name] ?? []));
      expect(item.language).toBe('en-US');
    }
  }, 400_000);

  it('answers v1, v2 and v3 as the spec says and the 50-GUID list in request order', async () => {
    const guid = guidOf.get('cancellation') as string;
    const [v1, v2, v3] = await Promise.all([
      read(guid, '', vendor(1)),
      read(guid, '', vendor(2)),
      read(guid, '', vendor(3)),
    ]);
    expect(v1.body.categories.every((c) => Array.isArray(c.subcategories) && c.categories === undefined)).toBe(true);
    expect(v1.body).not.toHaveProperty('language');
    expect(v2.body.categories.every((c) => Array.isArray(c.categories) && c.subcategories === undefined)).toBe(true);
    expect(v2.body).not.toHaveProperty('language');
    expect(v3.body).toEqual({ ...v2.body, language: 'en-US' });
    expect(v3.body.transcript).toBeNull();

    const known = [...guidOf.values()];
    const list = [...known, ...Array.from({ length: 50 - known.length }, () => randomUUID())];
    const r = await tenant.api('interaction-content:read', {
      method: 'GET',
      path: `/conversation-analyzer/interactions?calls=${list.join(',')}`,
    });
    expect(r.status).toBe(200);
    const items = r.body as { guid: string; status?: string; error?: { status: number } }[];
    expect(items.map((i) => i.guid)).toEqual(list);
    expect(items.slice(0, known.length).every((i) => i.status === 'processed')).toBe(true);
    expect(items.slice(known.length).every((i) => i.error?.status === 404)).toBe(true);
    const over = await tenant.api('interaction-content:read', {
      method: 'GET',
      path: `/conversation-analyzer/interactions?calls=${[...list, randomUUID()].join(',')}`,
    });
    expect(over.status).toBe(400);
  });

  it('finishes an analysis after the service is killed with SIGKILL mid-queue (lease ends, the job is taken up again)', async () => {
    const call = calls[0] as FixtureCall;
    const guid = randomUUID();
    const put = await tenant.api('interaction-content:write', {
      method: 'PUT',
      path: `/conversation-analyzer/recordings/${guid}`,
      body: readFileSync(resolve(fixtures, call.file)),
      contentType: 'audio/wav',
    });
    expect(put.status).toBe(202);
    await killService('analysis', 'SIGKILL');
    await restartService('analysis');
    await waitReady(['analysis']);
    const done = await eventually(
      async () => {
        const r = await read(guid);
        return r.body.status === 'processing' ? undefined : r;
      },
      { timeoutMs: 150_000, intervalMs: 500, what: 'analysis after kill -9' },
    );
    expect((done as ApiResponse<Item>).body.status).toBe('processed');
    for (const k of ['agent', 'customer', 'silence', 'crossTalk']) {
      const off = Math.abs(
        ((done as ApiResponse<Item>).body.callTimeBreakDown[k] as number) -
          (call.expectedBreakDown[k as 'agent'] as number),
      );
      expect([k, off <= 0.5]).toEqual([k, true]);
    }
  }, 300_000);
});
