import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let base: string;

beforeAll(async () => {
  await h.setup();
  base = await h.publicUrl(await h.start());
}, 60_000);
afterAll(() => h.teardown());

const fresh = async () => Api.for(h, base, h.account());

describe('skills', () => {
  it('PUT creates (201) then replaces (200); the name is unique case-insensitively (409 for another case)', async () => {
    const api = await fresh();
    expect((await api.admin('PUT', '/skills/Printers', { name: 'Printers' })).status).toBe(201);
    expect(
      (await api.admin('PUT', '/skills/Printers', { name: 'Printers', description: 'Laser and inkjet' })).status,
    ).toBe(200);
    const clash = await api.admin('PUT', '/skills/printers', { name: 'printers' });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('REQUEST.CONFLICT');
    const mismatch = await api.admin('PUT', '/skills/Printers', { name: 'Scanners' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0].pointer).toBe('/name');
    const list = expectOk(await api.admin('GET', '/skills')).body;
    expect(list).toEqual({
      meta: { page: 1, count: 1, pageCount: 1, totalCount: 1 },
      items: [{ name: 'Printers', description: 'Laser and inkjet' }],
    });
  });

  it('a skill held by an agent or tagged by a plan cannot be deleted (409); otherwise 204, then 404', async () => {
    const api = await fresh();
    for (const name of ['English', 'Billing', 'Spare']) expectOk(await api.admin('PUT', `/skills/${name}`, { name }));
    await api.createAgent('jane', { skills: ['english'] });
    expectOk(
      await api.admin('PUT', '/interaction-plans/P', {
        name: 'P',
        applets: [{ type: 'SkillTagger', name: 'T', skills: [{ name: 'BILLING' }] }],
      }),
    );
    expect((await api.admin('DELETE', '/skills/English')).status).toBe(409);
    expect((await api.admin('DELETE', '/skills/billing')).status).toBe(409);
    expect((await api.admin('DELETE', '/skills/spare')).status).toBe(204);
    expect((await api.admin('DELETE', '/skills/spare')).status).toBe(404);
  });
});

describe('interaction plans and routes', () => {
  it('plans are validated (contract schema 400, goto targets and skills 422) and routes need an existing plan', async () => {
    const api = await fresh();
    const schemaBad = await api.admin('PUT', '/interaction-plans/P', {
      name: 'P',
      applets: [{ type: 'Queue' }, { type: 'Teleport', name: 'x' }],
    });
    expect(schemaBad.status).toBe(400);
    const dangling = await api.admin('PUT', '/interaction-plans/P', {
      name: 'P',
      applets: [{ type: 'Queue', name: 'Q', onTimeout: { action: 'goto', target: 'Nowhere' } }],
    });
    expect(dangling.status).toBe(422);
    expect(dangling.body).toMatchObject({
      code: 'ROUTING.INVALID_PLAN',
      errors: [{ pointer: '/applets/0/onTimeout/target' }],
    });
    const unknownSkill = await api.admin('PUT', '/interaction-plans/P', {
      name: 'P',
      applets: [{ type: 'SkillTagger', name: 'T', skills: [{ name: 'Nope' }] }],
    });
    expect(unknownSkill.status).toBe(422);
    expect((await api.admin('PUT', '/routes/R', { name: 'R', interactionPlan: 'Missing' })).body.code).toBe(
      'ROUTING.UNKNOWN_PLAN',
    );

    const plan = {
      name: 'Support Plan',
      reportingGroup: 'Support',
      applets: [
        { type: 'Announcement', name: 'Hi', message: 'Hello' },
        { type: 'Queue', name: 'Q', timeoutSeconds: 60 },
      ],
    };
    expect((await api.admin('PUT', '/interaction-plans/Support%20Plan', plan)).status).toBe(201);
    expect(expectOk(await api.admin('GET', '/interaction-plans/support%20plan')).body).toEqual(plan);
    expect(
      (await api.admin('PUT', '/routes/Support', { name: 'Support', interactionPlan: 'support plan' })).status,
    ).toBe(201);
    expect(expectOk(await api.admin('GET', '/routes/SUPPORT')).body).toEqual({
      name: 'Support',
      interactionPlan: 'Support Plan',
    });
    expect((await api.admin('DELETE', '/interaction-plans/Support%20Plan')).status).toBe(409);
    expect((await api.admin('DELETE', '/routes/support')).status).toBe(204);
    expect((await api.admin('GET', '/routes/support')).status).toBe(404);
    expect((await api.admin('DELETE', '/interaction-plans/Support%20Plan')).status).toBe(204);
    expect(expectOk(await api.admin('GET', '/interaction-plans')).body.items).toEqual([]);
  });

  it('lists are paged', async () => {
    const api = await fresh();
    for (const name of ['A', 'B', 'C']) expectOk(await api.admin('PUT', `/skills/${name}`, { name }));
    const page2 = expectOk(await api.admin('GET', '/skills?page=2&limit=2')).body;
    expect(page2).toEqual({ meta: { page: 2, count: 1, pageCount: 2, totalCount: 3 }, items: [{ name: 'C' }] });
    expect((await api.admin('GET', '/skills?limit=5001')).status).toBe(400);
  });
});

describe('agents', () => {
  it('usernames are unique case-insensitively; skills must be configured; capacity per type', async () => {
    const api = await fresh();
    expectOk(await api.admin('PUT', '/skills/English', { name: 'English' }));
    const created = await api.admin('POST', '/agents', {
      username: 'Jane.Doe',
      displayName: 'Jane Doe',
      skills: [{ name: 'english' }],
      capacity: { calls: 1, semiLive: 3, nonLive: 10 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      username: 'Jane.Doe',
      presence: 'LoggedOut',
      skills: [{ name: 'English', level: 5 }],
      capacity: { calls: 1, semiLive: 3, nonLive: 10 },
    });
    const dup = await api.admin('POST', '/agents', {
      username: 'JANE.DOE',
      capacity: { calls: 1, semiLive: 1, nonLive: 1 },
    });
    expect(dup.status).toBe(409);
    const badSkill = await api.admin('POST', '/agents', {
      username: 'x',
      skills: [{ name: 'Klingon' }],
      capacity: { calls: 1, semiLive: 1, nonLive: 1 },
    });
    expect(badSkill.status).toBe(422);
    expect(badSkill.body.errors).toEqual([{ pointer: '/skills/0/name', message: 'skill Klingon is not configured' }]);
    const badCapacity = await api.admin('POST', '/agents', { username: 'y', capacity: { calls: 11, semiLive: 1 } });
    expect(badCapacity.status).toBe(400);
    expect((badCapacity.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/capacity/calls',
      '/capacity/nonLive',
    ]);

    const id = created.body.agentId;
    const other = expectOk(
      await api.admin('POST', '/agents', { username: 'bob', capacity: { calls: 1, semiLive: 1, nonLive: 1 } }),
    ).body.agentId;
    expect(
      (
        await api.admin('PUT', `/agents/${other}`, {
          username: 'jane.doe',
          capacity: { calls: 1, semiLive: 1, nonLive: 1 },
        })
      ).status,
    ).toBe(409);
    const replaced = expectOk(
      await api.admin('PUT', `/agents/${id}`, {
        username: 'Jane.Doe',
        capacity: { calls: 2, semiLive: 0, nonLive: 0 },
      }),
    );
    expect(replaced.body.capacity).toEqual({ calls: 2, semiLive: 0, nonLive: 0 });
    expect(expectOk(await api.admin('GET', '/agents')).body.meta.totalCount).toBe(2);

    expectOk(await api.agent('PUT', `/${id}/presence`, { presence: 'Ready' }));
    expect((await api.admin('DELETE', `/agents/${id}`)).status).toBe(409);
    expectOk(await api.agent('PUT', `/${id}/presence`, { presence: 'LoggedOut' }));
    expect((await api.admin('DELETE', `/agents/${id}`)).status).toBe(204);
    expect((await api.admin('GET', `/agents/${id}`)).status).toBe(404);
  });

  it('needs the admin scope', async () => {
    const api = await fresh();
    const agentToken = await h.token(api.accountId, 'agent');
    expect((await api.call('GET', '/admin/agents', agentToken)).status).toBe(403);
    expect((await fetch(`${base}/admin/agents`)).status).toBe(401);
  });
});
