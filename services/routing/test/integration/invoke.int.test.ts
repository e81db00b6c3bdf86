import { eventually } from '@cc/testing';
import mongoose from 'mongoose';
import { releaseKey } from '../../src/domain/interaction';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let base: string;

beforeAll(async () => {
  await h.setup();
  base = await h.publicUrl(await h.start());
}, 60_000);
afterAll(() => h.teardown());

async function freshAccount(): Promise<Api> {
  const api = await Api.for(h, base, h.account());
  await api.setupRoute('Support', { skills: ['English'] });
  return api;
}

const count = (collection: string, accountId: string) =>
  h.withDb((db) => db.collection(collection).countDocuments({ accountId }));

/** The store commands (collection.method) the in-process service sends while `fn` runs. */
async function commandsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const previous = mongoose.get('debug');
  mongoose.set('debug', function (this: unknown, collection: string, method: string, ...rest: unknown[]) {
    seen.push(`${collection}.${method}`);
    if (typeof previous === 'function') previous.call(this, collection, method, ...rest);
  });
  try {
    await fn();
  } finally {
    mongoose.set('debug', previous);
  }
  return seen;
}

describe('validation', () => {
  it('an invalid object anywhere → 400 naming each bad object by pointer, and nothing is processed', async () => {
    const api = await freshAccount();
    const res = await api.invoke({
      requests: [
        { requestId: 'ok-1', route: 'Support' },
        { action: 'dispatch' },
        { action: 'release', requestId: 'r3' },
        { route: 'Support', linkeddata: [{ type: 'clid', value: 'x'.repeat(51) }] },
        {
          route: 'Support',
          routingdata: { skills: [{ name: 'English', expiryafter: 2678400 }], interactiontype: 'video' },
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('REQUEST.VALIDATION');
    const pointers = (res.body.errors as { pointer: string }[]).map((e) => e.pointer).sort();
    expect(pointers).toEqual(
      [
        '/requests/1/route',
        '/requests/2/externalId',
        '/requests/3/linkeddata/0/value',
        '/requests/4/routingdata/interactiontype',
        '/requests/4/routingdata/skills/0/expiryafter',
      ].sort(),
    );
    expect(await count('interactions', api.accountId)).toBe(0);
    expect(await count('invoke_requests', api.accountId)).toBe(0);
  });

  it('no requests, unknown properties and wrong types are 400 too', async () => {
    const api = await freshAccount();
    expect((await api.invoke({ requests: [] })).body.errors[0].pointer).toBe('/requests');
    expect((await api.invoke({ requests: [{ route: 'Support', colour: 'red' }] })).body.errors[0].pointer).toBe(
      '/requests/0/colour',
    );
    expect((await api.invoke({ provider: 5, requests: [{ route: 'Support' }] })).body.errors[0].pointer).toBe(
      '/provider',
    );
  });

  it('unknown routes and skills → 422 with a pointer to each; nothing processed', async () => {
    const api = await freshAccount();
    const res = await api.invoke({
      requests: [
        { route: 'Support' },
        { route: 'Suport' },
        { route: 'Support', routingdata: { skills: [{ name: 'english' }, { name: 'Klingon' }] } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('ROUTING.UNKNOWN_ROUTE');
    expect(res.body.errors).toEqual([
      { pointer: '/requests/1/route', message: 'route Suport does not exist' },
      { pointer: '/requests/2/routingdata/skills/1/name', message: 'skill Klingon is not configured' },
    ]);
    expect(await count('interactions', api.accountId)).toBe(0);
    const skills = await api.invoke({
      requests: [{ route: 'Support', routingdata: { skills: [{ name: 'Klingon' }] } }],
    });
    expect(skills.status).toBe(422);
    expect(skills.body.code).toBe('ROUTING.UNKNOWN_SKILL');
  });

  it('requires the interactions:write scope and a valid token', async () => {
    const api = await freshAccount();
    const wrong = await api.call('POST', '/interactions/Invoke', await h.token(api.accountId, 'stats'), {
      requests: [{ route: 'Support' }],
    });
    expect(wrong.status).toBe(403);
    const none = await fetch(`${base}/interactions/Invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(none.status).toBe(401);
  });

  it('an unsupported version is 406; the lower-case path and vendor media types work', async () => {
    const api = await freshAccount();
    const token = await h.token(api.accountId, 'interactions:write');
    const v9 = await api.call(
      'POST',
      '/interactions/Invoke',
      token,
      { requests: [{ route: 'Support' }] },
      { accept: 'application/vnd.newvoicemedia.v9+json' },
    );
    expect(v9.status).toBe(406);
    const lower = await api.call(
      'POST',
      '/interactions/invoke',
      token,
      { requests: [{ route: 'Support' }] },
      { accept: 'application/vnd.newvoicemedia.v1+json' },
    );
    expect(lower.status).toBe(202);
    expect(lower.headers.get('content-type')).toMatch(/application\/vnd\.newvoicemedia\.v1\+json/);
  });
});

describe('providers', () => {
  it('an unregistered provider → 422 at /provider; once provider.registered arrives on cc.provider.v1 it is accepted', async () => {
    const api = await freshAccount();
    const before = await api.invoke({ provider: 'AcmeCRM', requests: [{ route: 'Support' }] });
    expect(before.status).toBe(422);
    expect(before.body).toMatchObject({ code: 'INVOKE.UNKNOWN_PROVIDER', errors: [{ pointer: '/provider' }] });
    expect(before.body.detail).toMatch(/AcmeCRM is not registered/);
    await h.registerProvider(api.accountId, 'AcmeCRM', { hold: 1 });
    const after = await eventually(
      () => api.invoke({ provider: 'AcmeCRM', requests: [{ route: 'Support', externalId: 'x1' }] }),
      {
        accept: (r) => r.status === 202,
        timeoutMs: 30_000,
        what: 'the provider read model to learn AcmeCRM',
      },
    );
    expect(after.body.results[0].outcome).toBe('queued');
  });

  it('a provider registered for another account is unknown here; a deleted provider is refused again', async () => {
    const a = await freshAccount();
    const b = await freshAccount();
    await h.registerProvider(a.accountId, 'Shared', {});
    await eventually(() => a.invoke({ provider: 'Shared', requests: [{ route: 'Support' }] }), {
      accept: (r) => r.status === 202,
      timeoutMs: 30_000,
    });
    expect((await b.invoke({ provider: 'Shared', requests: [{ route: 'Support' }] })).status).toBe(422);
    await h.registerProvider(a.accountId, 'Shared', {}, 'provider.deleted', 2);
    await eventually(() => a.invoke({ provider: 'Shared', requests: [{ route: 'Support' }] }), {
      accept: (r) => r.status === 422,
      timeoutMs: 30_000,
    });
    // A stale registration (lower version) arriving late does not resurrect it.
    await h.registerProvider(a.accountId, 'Shared', {}, 'provider.registered', 1);
    await h.registerProvider(a.accountId, 'Marker', {});
    await eventually(() => a.invoke({ provider: 'Marker', requests: [{ route: 'Support' }] }), {
      accept: (r) => r.status === 202,
      timeoutMs: 30_000,
    });
    expect((await a.invoke({ provider: 'Shared', requests: [{ route: 'Support' }] })).status).toBe(422);
  });
});

describe('requestId dedupe', () => {
  it('a repeated requestId returns the original outcome and processes nothing', async () => {
    const api = await freshAccount();
    const body = { requests: [{ requestId: 'dup-1', externalId: 'e-dup', route: 'Support' }] };
    const first = expectOk(await api.invoke(body));
    expect(first.status).toBe(202);
    const again = expectOk(await api.invoke(body));
    expect(again.body.results[0]).toEqual({ ...first.body.results[0], duplicate: true });
    // The lower-case spelling is the same body.
    const lower = expectOk(
      await api.invoke({ requests: [{ requestid: 'dup-1', externalid: 'e-dup', route: 'Support' }] }),
    );
    expect(lower.body.results[0].interactionId).toBe(first.body.results[0].interactionId);
    expect(await count('interactions', api.accountId)).toBe(1);
    const stored = await h.withDb((db) =>
      db.collection('invoke_requests').findOne({ accountId: api.accountId, requestId: 'dup-1' }),
    );
    expect(stored?.expiresAt - stored?.createdAt).toBeGreaterThanOrEqual(24 * 3_600_000);
  });

  it("a dispatch's claim is completed by its interaction's insert, not a second write; a claim whose insert never happened is resumed", async () => {
    const api = await freshAccount();
    const body = { requests: [{ requestId: 'once', externalId: 'e-once', route: 'Support' }] };
    let first: Awaited<ReturnType<Api['invoke']>> | undefined;
    const sent = await commandsDuring(async () => {
      first = expectOk(await api.invoke(body));
    });
    const result = first?.body.results[0];
    expect(result).toMatchObject({ outcome: 'queued', duplicate: false });
    expect(sent).not.toContain('invoke_requests.bulkWrite');
    const claimOf = () =>
      h.withDb((db) => db.collection('invoke_requests').findOne({ accountId: api.accountId, requestId: 'once' }));
    expect(await claimOf()).toMatchObject({
      status: 'pending',
      outcome: 'queued',
      interactionId: result.interactionId,
    });
    // Its interaction exists: a retry is a duplicate, answered from the claim.
    expect(expectOk(await api.invoke(body)).body.results[0]).toEqual({ ...result, duplicate: true });
    // As after a crash between the claim and the insert: the claim stays, the interaction was never stored.
    await h.withDb(async (db) => {
      await db.collection('interactions').deleteOne({ _id: result.interactionId });
      await db.collection('external_ids').deleteMany({ accountId: api.accountId });
    });
    const resumed = expectOk(await api.invoke(body)).body.results[0];
    expect(resumed).toMatchObject({ interactionId: result.interactionId, outcome: 'queued' });
    expect(await count('interactions', api.accountId)).toBe(1);
    expect(expectOk(await api.invoke(body)).body.results[0]).toEqual({ ...result, duplicate: true });
  });

  it('the same requestId with a different body → 409 and nothing is processed', async () => {
    const api = await freshAccount();
    expectOk(await api.invoke({ requests: [{ requestId: 'c-1', route: 'Support' }] }));
    const res = await api.invoke({
      requests: [
        { route: 'Support', externalId: 'new' },
        { requestId: 'c-1', route: 'Support', externalId: 'different' },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'INVOKE.REQUEST_ID_CONFLICT',
      errors: [{ pointer: '/requests/1/requestId' }],
    });
    expect(await count('interactions', api.accountId)).toBe(1);
  });

  it('within one Invocation only the first object of a requestId is processed', async () => {
    const api = await freshAccount();
    const res = expectOk(
      await api.invoke({
        requests: [
          { requestId: 'same', route: 'Support' },
          { requestId: 'other', route: 'Support' },
          { requestId: 'same', route: 'Support' },
        ],
      }),
    );
    const [a, b, c] = res.body.results;
    expect(a.duplicate).toBe(false);
    expect(b.interactionId).not.toBe(a.interactionId);
    expect(c).toEqual({ ...a, index: 2, duplicate: true });
    expect(await count('interactions', api.accountId)).toBe(2);
  });

  it('requestIds are per account', async () => {
    const a = await freshAccount();
    const b = await freshAccount();
    const ra = expectOk(await a.invoke({ requests: [{ requestId: 'shared', route: 'Support' }] }));
    const rb = expectOk(
      await b.invoke({ requests: [{ requestId: 'shared', route: 'Support', externalId: 'other-body' }] }),
    );
    expect(rb.body.results[0].duplicate).toBe(false);
    expect(rb.body.results[0].interactionId).not.toBe(ra.body.results[0].interactionId);
  });
});

describe('release by externalId', () => {
  it('removes a queued interaction (released by api) and answers not-found afterwards', async () => {
    const api = await freshAccount();
    const d = expectOk(await api.invoke({ requests: [{ externalId: 'rel-1', route: 'Support' }] }));
    const id = d.body.results[0].interactionId;
    const r = expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'rel-1' }] }));
    expect(r.body.results[0]).toMatchObject({
      action: 'release',
      externalId: 'rel-1',
      interactionId: id,
      outcome: 'released',
    });
    const again = expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'rel-1' }] }));
    expect(again.body.results[0]).toMatchObject({ outcome: 'not-found', interactionId: null });
    const events = await eventually(() => h.collector?.of(id) ?? [], {
      accept: (e) => e.some((x) => x.type === 'interaction.released'),
    });
    expect(events.map((e) => e.type)).toEqual([
      'interaction.queued',
      'interaction.applet-executed',
      'interaction.released',
    ]);
    expect(events[1]?.data.queue.result).toBe('Released');
    expect(events[2]?.data).toMatchObject({ releasedBy: 'api', previousState: 'queued', externalId: 'rel-1' });
    // The externalId is free again.
    expect(
      expectOk(await api.invoke({ requests: [{ externalId: 'rel-1', route: 'Support' }] })).body.results[0].outcome,
    ).toBe('queued');
  });

  it('a dispatch may not reuse a live externalId (409), but a release earlier in the same Invocation frees it', async () => {
    const api = await freshAccount();
    expectOk(await api.invoke({ requests: [{ externalId: 'busy', route: 'Support' }] }));
    const clash = await api.invoke({ requests: [{ externalId: 'busy', route: 'Support' }] });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: 'INVOKE.EXTERNAL_ID_IN_USE',
      errors: [{ pointer: '/requests/0/externalId' }],
    });
    const swap = expectOk(
      await api.invoke({
        requests: [
          { action: 'release', externalId: 'busy' },
          { externalId: 'busy', route: 'Support' },
        ],
      }),
    );
    expect(swap.body.results.map((r: { outcome: string }) => r.outcome)).toEqual(['released', 'queued']);
  });

  it('concurrent dispatches of one externalId: one is queued, the others 409, and it stays releasable by that externalId', async () => {
    const api = await freshAccount();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => api.invoke({ requests: [{ externalId: 'race', route: 'Support' }] })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.body).toMatchObject({
        code: 'INVOKE.EXTERNAL_ID_IN_USE',
        errors: [{ pointer: '/requests/0/externalId' }],
      });
    const winner = answers.find((a) => a.status === 202)?.body.results[0];
    expect(await count('interactions', api.accountId)).toBe(1);
    // The losers' externalId claims must not hide the winner (they overwrote the claim before losing).
    const release = expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'race' }] }));
    expect(release.body.results[0]).toMatchObject({ outcome: 'released', interactionId: winner.interactionId });
  });

  it('a new externalId, route and plan already read cost no read: the externalId is claimed by insert', async () => {
    const api = await freshAccount();
    expectOk(await api.invoke({ requests: [{ externalId: 'warm', route: 'Support' }] }));
    const sent = await commandsDuring(async () =>
      expectOk(await api.invoke({ requests: [{ requestId: 'cold-1', externalId: 'cold', route: 'Support' }] })),
    );
    // (The routing pass the dispatch wakes reads the account's live interactions and agents: not Invoke's.)
    const reads = sent.filter(
      (c) =>
        /\.(find|findOne|countDocuments|aggregate)$/.test(c) &&
        /^(external_ids|routes|interaction_plans|skills|providers|invoke_requests)\./.test(c),
    );
    expect(reads).toEqual([]);
    expect(sent).toEqual(expect.arrayContaining(['external_ids.insertMany', 'interactions.insertMany']));
    expect(sent).not.toContain('external_ids.bulkWrite');
    const release = expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'cold' }] }));
    expect(release.body.results[0].outcome).toBe('released');
  });

  it('a claim left behind (an interaction never inserted, or ended) does not block the externalId', async () => {
    const api = await freshAccount();
    await h.withDb((db) =>
      db.collection('external_ids').insertOne({
        _id: `${api.accountId}:${releaseKey(null, 'ghost')}` as never,
        accountId: api.accountId,
        interactionId: 'gone',
        createdAt: 0,
      }),
    );
    const d = expectOk(await api.invoke({ requests: [{ externalId: 'ghost', route: 'Support' }] }));
    expect(d.body.results[0].outcome).toBe('queued');
    const release = expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'ghost' }] }));
    expect(release.body.results[0]).toMatchObject({
      outcome: 'released',
      interactionId: d.body.results[0].interactionId,
    });
  });

  it('a refused Invocation withdraws the externalId and requestId claims it wrote', async () => {
    const api = await freshAccount();
    expectOk(await api.invoke({ requests: [{ externalId: 'held', route: 'Support' }] }));
    const refused = await api.invoke({
      requests: [
        { requestId: 'w-1', externalId: 'new-a', route: 'Support' },
        { requestId: 'w-2', externalId: 'held', route: 'Support' },
      ],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/requests/1/externalId' })]);
    expect(await count('external_ids', api.accountId)).toBe(1);
    expect(await count('invoke_requests', api.accountId)).toBe(0);
    expect(await count('interactions', api.accountId)).toBe(1);
  });

  it('an externalId claim that dedupe leaves unused is withdrawn (a repeated requestId)', async () => {
    const api = await freshAccount();
    const body = { requests: [{ requestId: 'again', externalId: 'ended', route: 'Support' }] };
    const first = expectOk(await api.invoke(body));
    expectOk(await api.invoke({ requests: [{ action: 'release', externalId: 'ended' }] }));
    // The released interaction's claim is gone, as once it is archived.
    await h.withDb((db) => db.collection('external_ids').deleteMany({ accountId: api.accountId }));
    const repeat = expectOk(await api.invoke(body));
    expect(repeat.body.results[0]).toMatchObject({
      duplicate: true,
      interactionId: first.body.results[0].interactionId,
      outcome: 'queued',
    });
    // The repeat claimed 'ended' under a new interaction id it then did not use: withdrawn.
    expect(await count('external_ids', api.accountId)).toBe(0);
  });

  it('requires the provider the interaction was dispatched with', async () => {
    const api = await freshAccount();
    await h.registerProvider(api.accountId, 'P1', {});
    await h.registerProvider(api.accountId, 'P2', {});
    await eventually(() => api.invoke({ provider: 'P2', requests: [{ externalId: 'probe', route: 'Support' }] }), {
      accept: (r) => r.status === 202,
      timeoutMs: 30_000,
    });
    expectOk(await api.invoke({ provider: 'P1', requests: [{ externalId: 'owned', route: 'Support' }] }));
    expect((await api.invoke({ requests: [{ action: 'release', externalId: 'owned' }] })).body.results[0].outcome).toBe(
      'not-found',
    );
    expect(
      (await api.invoke({ provider: 'P2', requests: [{ action: 'release', externalId: 'owned' }] })).body.results[0]
        .outcome,
    ).toBe('not-found');
    expect(
      (await api.invoke({ provider: 'P1', requests: [{ action: 'release', externalId: 'owned' }] })).body.results[0]
        .outcome,
    ).toBe('released');
  });

  it('a dispatch without externalId can never be released by API', async () => {
    const api = await freshAccount();
    const d = expectOk(await api.invoke({ requests: [{ route: 'Support' }] }));
    const id = d.body.results[0].interactionId;
    // Nothing names it: not its interaction id, not an empty or guessed externalId.
    for (const externalId of [id, 'none', `none:${id}`]) {
      expect((await api.invoke({ requests: [{ action: 'release', externalId }] })).body.results[0].outcome).toBe(
        'not-found',
      );
    }
    const state = await h.withDb((db) =>
      db.collection('interactions').findOne({ accountId: api.accountId, _id: id } as never),
    );
    expect(state?.state).toBe('queued');
  });
});

describe('interaction plans at dispatch', () => {
  it('SetDataSource, SkillTagger, CallRecording and Announcement run before the Queue applet, each as an event', async () => {
    const api = await Api.for(h, base, h.account());
    await api.setupRoute('Billing', {
      skills: ['Billing'],
      applets: [
        { type: 'SetDataSource', name: 'Set priority', dataSource: 'Priority', fromProperty: 'priority' },
        { type: 'SkillTagger', name: 'Tag', skills: [{ name: 'billing', expiryafter: 30 }] },
        { type: 'CallRecording', name: 'Record' },
        { type: 'Announcement', name: 'Welcome', message: 'Thanks for calling' },
        { type: 'Queue', name: 'Billing queue', virtualQueue: 'Billing VQ', timeoutSeconds: 600 },
      ],
    });
    const d = expectOk(
      await api.invoke({
        requests: [
          {
            route: 'billing',
            linkeddata: [{ type: 'interactionproperty', key: 'priority', value: 'gold' }],
            routingdata: { interactiontype: 'live' },
          },
        ],
      }),
    );
    const id = d.body.results[0].interactionId;
    const events = await eventually(() => h.collector?.of(id) ?? [], { accept: (e) => e.length >= 5 });
    expect(events.map((e) => e.data.applet?.type ?? e.type)).toEqual([
      'interaction.queued',
      'SetDataSource',
      'SkillTagger',
      'CallRecording',
      'Announcement',
    ]);
    expect(events[1]?.data.dataSource).toEqual({ name: 'Priority', value: 'gold' });
    expect(events[4]?.data.detail).toEqual({ message: 'Thanks for calling' });
    const stored = await h.withDb((db) =>
      db.collection('interactions').findOne({ accountId: api.accountId, _id: id } as never),
    );
    expect(stored).toMatchObject({ state: 'queued', recording: true, skills: [{ name: 'Billing', expiryafter: 30 }] });
    expect(stored?.queue).toMatchObject({ name: 'Billing queue', virtualQueue: 'Billing VQ' });
  });

  it('a Queue timeout follows onTimeout (goto → next Queue, then release by the system)', async () => {
    const api = await Api.for(h, base, h.account());
    await api.setupRoute('Night', {
      applets: [
        { type: 'Queue', name: 'First', timeoutSeconds: 1, onTimeout: { action: 'goto', target: 'Second' } },
        { type: 'Announcement', name: 'Skipped', message: 'never' },
        { type: 'Queue', name: 'Second', timeoutSeconds: 1, onTimeout: { action: 'release' } },
      ],
    });
    const id = expectOk(await api.invoke({ requests: [{ route: 'Night' }] })).body.results[0].interactionId;
    const events = await eventually(() => h.collector?.of(id) ?? [], {
      accept: (e) => e.some((x) => x.type === 'interaction.released'),
      timeoutMs: 20_000,
      what: 'the system release after two queue timeouts',
    });
    expect(events.map((e) => e.data.queue?.result ?? e.type)).toEqual([
      'interaction.queued',
      'TimedOut',
      'TimedOut',
      'interaction.released',
    ]);
    expect(events.at(-1)?.data).toMatchObject({ releasedBy: 'system', endReason: 'QueueTimeout' });
  });
});
