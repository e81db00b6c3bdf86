import { randomUUID } from 'node:crypto';
import { eventually } from '@cc/testing';
import { encodeMonoWav, parseWav } from '../../src/domain/wav';
import { type AnalysisUnderTest, fixtureAudio, fixtureCalls, type Reply, startAnalysis } from '../support/analysis';

const account = `acct-${randomUUID().slice(0, 8)}`;
const other = `acct-${randomUUID().slice(0, 8)}`;
const v = (n: number) => ({ accept: `application/vnd.newvoicemedia.v${n}+json` });

const rules = {
  categories: [
    {
      category: 'Retention',
      subcategories: [
        { name: 'Cancellation', phrases: ['cancel my subscription'] },
        { name: 'Offer', phrases: ['discount'] },
      ],
    },
    { category: 'Greeting', subcategories: [{ name: 'Welcome', phrases: ['thank you for calling'] }] },
    {
      category: 'Technical',
      subcategories: [{ name: 'Connectivity', phrases: ['internet connection is not working'] }],
    },
  ],
};

let t: AnalysisUnderTest;
let writer: Awaited<ReturnType<AnalysisUnderTest['as']>>;
let reader: Awaited<ReturnType<AnalysisUnderTest['as']>>;
const guids = new Map<string, string>();

beforeAll(async () => {
  t = await startAnalysis({
    ANALYSIS_RECORDING_LIMIT_BYTES: '1500000',
    ANALYSIS_SWEEP_MS: '1000',
    ANALYSIS_LEASE_MS: '3000',
  });
  writer = await t.as(account, 'interaction-content:write');
  reader = await t.as(account, 'interaction-content:read');
  const admin = await t.as(account, 'admin');
  expect((await admin.putJson('/admin/analysis/categories', rules)).status).toBe(200);
  expect((await admin.get('/admin/analysis/categories')).body).toEqual(rules);
}, 120_000);

afterAll(async () => {
  await t?.stop();
});

const processed = (guid: string, query = ''): Promise<Reply> =>
  eventually<Reply | undefined>(
    async () => {
      const r = await reader.get(`/conversation-analyzer/interactions/${guid}${query}`);
      return r.body?.status === 'processing' ? undefined : r;
    },
    { timeoutMs: 90_000, intervalMs: 250, what: `analysis of ${guid}` },
  ) as Promise<Reply>;

describe('upload → analysis → read, through the gateway', () => {
  it.each(fixtureCalls.map((c) => [c.name, c] as const))(
    '%s: breakdown within 0.5 s, key phrases in the transcript, configured categories found',
    async (_name, call) => {
      const guid = randomUUID();
      guids.set(call.name, guid);
      const put = await writer.put(`/conversation-analyzer/recordings/${guid}`, fixtureAudio(call), {
        'content-type': 'audio/wav',
        'content-language': 'en-US',
      });
      expect(put.status).toBe(202);
      expect(put.body).toMatchObject({ guid, status: 'processing' });
      const during = await reader.get(`/conversation-analyzer/interactions/${guid}`);
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({ guid, status: 'processing', confidence: null, categories: [] });

      const done = await processed(guid, '?transcript=true');
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('processed');
      for (const k of ['agent', 'customer', 'silence', 'crossTalk'] as const) {
        expect([k, Math.abs(done.body.callTimeBreakDown[k] - call.expectedBreakDown[k]) <= 0.5]).toEqual([k, true]);
      }
      const transcript = done.body.transcript as string;
      expect(transcript).toMatch(/^\[00:0\d\.\d (Agent|Customer)\] /);
      for (const phrase of call.keyPhrases) expect(transcript.toLowerCase()).toContain(phrase);
      const names = (done.body.categories as { categories: { name: string }[] }[]).flatMap((c) =>
        c.categories.map((s) => s.name),
      );
      if (call.name === 'cancellation') expect(names).toEqual(expect.arrayContaining(['Cancellation', 'Welcome']));
      if (call.name === 'connectivity') expect(names).toContain('Connectivity');
      expect(['High', 'Medium', 'Low']).toContain(done.body.confidence);
      expect(done.body.language).toBe('en-US');
    },
    120_000,
  );

  it('answers v1, v2 and v3 shapes by Accept (default v3) and the transcript only when asked', async () => {
    const guid = guids.get('cancellation') as string;
    const one = (n: number) => reader.get(`/conversation-analyzer/interactions/${guid}`, v(n));
    const [v1, v2, v3, dflt] = await Promise.all([
      one(1),
      one(2),
      one(3),
      reader.get(`/conversation-analyzer/interactions/${guid}`),
    ]);
    expect(v1.body.categories[0]).toEqual({ category: 'Retention', subcategories: ['Cancellation', 'Offer'] });
    expect(v1.body).not.toHaveProperty('language');
    expect(v2.body.categories[0]).toEqual({
      category: 'Retention',
      categories: [
        { name: 'Cancellation', matches: 'cancel my subscription' },
        { name: 'Offer', matches: 'discount' },
      ],
    });
    expect(v2.body).not.toHaveProperty('language');
    expect(v3.body).toEqual({ ...v2.body, language: 'en-US' });
    expect(dflt.body).toEqual(v3.body);
    expect(v3.body.transcript).toBeNull();
    expect((await one(4)).status).toBe(406);
  });

  it('?calls= answers one entry per GUID in request order, unknown GUIDs as the not-found entry', async () => {
    const a = guids.get('cancellation') as string;
    const b = guids.get('connectivity') as string;
    const unknown = randomUUID();
    const r = await reader.get(`/conversation-analyzer/interactions?calls=${b},${unknown},${a}`, v(2));
    expect(r.status).toBe(200);
    expect(r.body.map((i: { guid: string }) => i.guid)).toEqual([b, unknown, a]);
    expect(r.body[1]).toEqual({
      guid: unknown,
      error: { status: 404, code: 'ANALYSIS.UNKNOWN_CALL', title: 'No recorded call with this GUID' },
    });
    expect(r.body[0].status).toBe('processed');
    const tooMany = Array.from({ length: 51 }, () => randomUUID()).join(',');
    const bad = await reader.get(`/conversation-analyzer/interactions?calls=${tooMany}`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe('/query/calls');
  });

  it('is tenant-scoped: another account sees nothing', async () => {
    const stranger = await t.as(other, 'interaction-content:read');
    const guid = guids.get('cancellation') as string;
    const r = await stranger.get(`/conversation-analyzer/interactions/${guid}`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('ANALYSIS.UNKNOWN_CALL');
  });

  it('takes two mono parts as multipart/form-data', async () => {
    const call = fixtureCalls[0] as (typeof fixtureCalls)[number];
    const wav = parseWav(fixtureAudio(call));
    const form = new FormData();
    form.append(
      'agent',
      new Blob([new Uint8Array(encodeMonoWav(wav.channels[0] as Int16Array, wav.sampleRate))], { type: 'audio/wav' }),
      'a.wav',
    );
    form.append(
      'customer',
      new Blob([new Uint8Array(encodeMonoWav(wav.channels[1] as Int16Array, wav.sampleRate))], { type: 'audio/wav' }),
      'c.wav',
    );
    const guid = randomUUID();
    const put = await writer.put(`/conversation-analyzer/recordings/${guid}`, form);
    expect(put.status).toBe(202);
    const done = await processed(guid);
    for (const k of ['agent', 'customer', 'silence', 'crossTalk'] as const) {
      expect(Math.abs(done.body.callTimeBreakDown[k] - call.expectedBreakDown[k])).toBeLessThanOrEqual(0.5);
    }
  }, 120_000);

  it('refuses bad uploads with precise problems and writes nothing', async () => {
    const guid = randomUUID();
    const path = `/conversation-analyzer/recordings/${guid}`;
    const notWav = await writer.put(path, 'hello', { 'content-type': 'audio/wav' });
    expect(notWav.status).toBe(400);
    expect(notWav.body.code).toBe('ANALYSIS.BAD_AUDIO');
    const text = await writer.put(path, 'hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    const mono = await writer.put(path, encodeMonoWav(new Int16Array(16000), 16000), { 'content-type': 'audio/wav' });
    expect(mono.status).toBe(415);
    const big = await writer.put(path, Buffer.alloc(2_000_000), { 'content-type': 'audio/wav' });
    expect(big.status).toBe(413);
    const badChannel = await writer.put(`${path}?agentChannel=middle`, fixtureAudio(fixtureCalls[0] as never), {
      'content-type': 'audio/wav',
    });
    expect(badChannel.status).toBe(400);
    expect(badChannel.body.errors[0].pointer).toBe('/query/agentChannel');
    expect((await reader.get(`/conversation-analyzer/interactions/${guid}`)).status).toBe(404);
    const readOnly = await reader.put(path, fixtureAudio(fixtureCalls[0] as never), { 'content-type': 'audio/wav' });
    expect(readOnly.status).toBe(403);
  });

  it('resumes a job whose worker died (lease expired) and finishes it', async () => {
    const guid = guids.get('connectivity') as string;
    const id = `${account}:${guid}`;
    // What a kill -9 mid-analysis leaves: the job running under a dead owner's lease, no result.
    await t.rawAnalyses().updateOne({ _id: id } as never, {
      $set: { state: 'running', leaseOwner: 'dead-worker', leaseUntil: new Date(Date.now() - 1000), result: null },
    });
    t.service.repo.clearCache(); // the store was changed behind the service's back
    expect((await reader.get(`/conversation-analyzer/interactions/${guid}`)).body.status).toBe('processing');
    const done = await processed(guid);
    expect(done.body.status).toBe('processed');
    expect(done.body.callTimeBreakDown.agent).toBeGreaterThan(0);
  }, 120_000);
});
