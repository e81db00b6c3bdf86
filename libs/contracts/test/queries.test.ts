import {
  agentActivitiesQuery,
  agentSummariesQuery,
  analysisListQuery,
  analysisParams,
  analysisQuery,
  featureFlagsPatch,
  interactionPlan,
  statsInteractionsQuery,
  transferRequest,
  v0StatisticsQuery,
  validateQuery,
} from '../src/index';
import { bodyErrors, expectViolation, queryErrors } from './helpers/expect-violation';

const guids = (n: number) =>
  Array.from({ length: n }, (_, i) => `3f2b8c1e-9d4a-4c6b-8e2f-${String(i).padStart(12, '0')}`).join(',');

describe('agent summaries query', () => {
  const start = '2024-05-01T08:00:00Z';

  it('accepts cadence 15 only, coerced from the query string, default 15', () => {
    const result = validateQuery<Record<string, unknown>>(agentSummariesQuery, { start, cadence: '15' });
    expect(result).toEqual({ ok: true, value: { start, cadence: 15, page: 1, limit: 100 } });
    expect(validateQuery(agentSummariesQuery, { start })).toMatchObject({ ok: true, value: { cadence: 15 } });
    expectViolation(queryErrors(agentSummariesQuery, { start, cadence: '30' }), '/cadence', 'cadence must be 15');
    expectViolation(queryErrors(agentSummariesQuery, { start, cadence: 'x' }), '/cadence', 'cadence must be a number');
  });

  it('requires start as an ISO 8601 date-time with a time zone', () => {
    expectViolation(queryErrors(agentSummariesQuery, {}), '/start', 'start is required');
    const message = 'start must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T08:00:00Z';
    expectViolation(queryErrors(agentSummariesQuery, { start: 'yesterday' }), '/start', message);
    expectViolation(queryErrors(agentSummariesQuery, { start: '2024-05-01T08:00:00' }), '/start', message);
    expect(queryErrors(agentSummariesQuery, { start: '2024-05-01T08:00:00.000+02:00' })).toEqual([]);
  });

  it('pages with page >= 1 and limit <= 5000 (default 100)', () => {
    expectViolation(queryErrors(agentSummariesQuery, { start, limit: '5001' }), '/limit', 'limit must be at most 5000');
    expectViolation(queryErrors(agentSummariesQuery, { start, page: '0' }), '/page', 'page must be at least 1');
    expect(validateQuery(agentSummariesQuery, { start, limit: '5000', page: '3' })).toMatchObject({
      value: { limit: 5000, page: 3 },
    });
  });

  it('refuses unknown parameters', () => {
    expectViolation(
      queryErrors(agentSummariesQuery, { start, pageSize: '10' }),
      '/pageSize',
      /^pageSize is not allowed \(allowed: start, end, cadence, agentId, revisedSince, page, limit\)$/,
    );
  });

  it("does not touch the caller's object", () => {
    const query = { start, cadence: '15' };
    validateQuery(agentSummariesQuery, query);
    expect(query).toEqual({ start, cadence: '15' });
  });
});

describe('statistics queries', () => {
  const start = '2024-05-01T08:00:00Z';

  it('default include to Started and check its values', () => {
    expect(validateQuery(statsInteractionsQuery, { start })).toMatchObject({ value: { include: 'Started' } });
    expectViolation(
      queryErrors(statsInteractionsQuery, { start, include: 'Ended' }),
      '/include',
      'include must be one of: Started, StartedOrEnded, Processed',
    );
  });

  it('filter agent activities by type', () => {
    expect(queryErrors(agentActivitiesQuery, { start, type: 'Presence', agentId: 'a1' })).toEqual([]);
    expectViolation(
      queryErrors(agentActivitiesQuery, { start, type: 'Call' }),
      '/type',
      'type must be one of: Presence, Workload, Interaction',
    );
  });
});

describe('conversation analyzer', () => {
  it('accepts 1 to 50 call GUIDs', () => {
    expect(queryErrors(analysisListQuery, { calls: guids(1) })).toEqual([]);
    expect(queryErrors(analysisListQuery, { calls: guids(50) })).toEqual([]);
    const message = 'calls must be a comma-separated list of 1 to 50 call GUIDs (no spaces)';
    expectViolation(queryErrors(analysisListQuery, { calls: guids(51) }), '/calls', message);
    expectViolation(queryErrors(analysisListQuery, { calls: 'not-a-guid' }), '/calls', message);
    expectViolation(queryErrors(analysisListQuery, { calls: `${guids(1)}, ${guids(1)}` }), '/calls', message);
    expectViolation(queryErrors(analysisListQuery, {}), '/calls', 'calls is required');
  });

  it('coerces transcript to a boolean, default false', () => {
    expect(validateQuery(analysisQuery, { transcript: 'true' })).toEqual({ ok: true, value: { transcript: true } });
    expect(validateQuery(analysisQuery, {})).toEqual({ ok: true, value: { transcript: false } });
    expectViolation(queryErrors(analysisQuery, { transcript: 'yes' }), '/transcript', 'transcript must be a boolean');
  });

  it('requires a GUID path parameter', () => {
    expectViolation(queryErrors(analysisParams, { guid: '42' }), '/guid', /^guid must be a GUID/);
  });
});

describe('v0 statistics query', () => {
  it('takes exactly one of interval, latest=true, or start and end', () => {
    expect(queryErrors(v0StatisticsQuery, { interval: '15' })).toEqual([]);
    expect(queryErrors(v0StatisticsQuery, { latest: 'true' })).toEqual([]);
    expect(queryErrors(v0StatisticsQuery, { start: '2024-05-01T00:00:00Z', end: '2024-05-02T00:00:00Z' })).toEqual([]);
    expectViolation(
      queryErrors(v0StatisticsQuery, {}),
      '/interval',
      'interval is required: give interval, latest=true, or start and end',
    );
    expectViolation(
      queryErrors(v0StatisticsQuery, { interval: '5', start: '2024-05-01T00:00:00Z', end: '2024-05-02T00:00:00Z' }),
      '/start',
      'start cannot be combined with interval',
    );
    expectViolation(
      queryErrors(v0StatisticsQuery, { start: '2024-05-01T00:00:00Z' }),
      '/end',
      'end is required when start is given',
    );
    expectViolation(queryErrors(v0StatisticsQuery, { latest: 'false' }), '/latest', 'latest must be true when given');
    expectViolation(queryErrors(v0StatisticsQuery, { interval: '1441' }), '/interval', 'interval must be at most 1440');
  });
});

describe('admin and agent-desktop bodies', () => {
  it('transfer names exactly one target', () => {
    expect(bodyErrors(transferRequest, { agent: 'jane' })).toEqual([]);
    expect(bodyErrors(transferRequest, { route: 'Escalations' })).toEqual([]);
    expectViolation(bodyErrors(transferRequest, {}), '/agent', 'agent is required: name one target, agent or route');
    expectViolation(
      bodyErrors(transferRequest, { agent: 'a', route: 'r' }),
      '/route',
      'route cannot be combined with agent',
    );
  });

  it('a Queue applet going to another applet on timeout names it', () => {
    const plan = {
      name: 'P',
      applets: [{ type: 'Queue', name: 'Q', timeoutSeconds: 60, onTimeout: { action: 'goto' } }],
    };
    expectViolation(
      bodyErrors(interactionPlan, plan),
      '/applets/0/onTimeout/target',
      'target is required when action is goto',
    );
    expectViolation(
      bodyErrors(interactionPlan, {
        name: 'P',
        applets: [{ type: 'Announcement', name: 'A', message: 'hi', skills: [] }],
      }),
      '/applets/0/skills',
      'skills is not allowed (allowed: type, name, message)',
    );
  });

  it('a feature-flag patch changes at least one known flag', () => {
    expectViolation(bodyErrors(featureFlagsPatch, {}), '', 'body must have at least 1 property');
    expectViolation(bodyErrors(featureFlagsPatch, { summaries: true }), '/summaries', /^summaries is not allowed/);
  });
});

describe('paging parameters (issue 19 item 1)', () => {
  const start = '2024-05-01T08:00:00Z';
  // Number('1e309') and Number('Infinity') are Infinity, Number('0x10') is 16: a lax coercion let them through.
  it.each([
    '1e309',
    'Infinity',
    '-Infinity',
    '0x10',
    '1e3',
    '1.0',
    ' 2',
    '+3',
    'NaN',
    '0b1',
  ])('refuses page=%j and limit=%j with a 400 naming the parameter', (value) => {
    expectViolation(
      queryErrors(agentSummariesQuery, { start, page: value }),
      '/page',
      'page must be a decimal integer',
    );
    expectViolation(
      queryErrors(agentSummariesQuery, { start, limit: value }),
      '/limit',
      'limit must be a decimal integer',
    );
  });

  it('accepts decimal integers in range', () => {
    expect(validateQuery(agentSummariesQuery, { start, page: '1000000', limit: '1' })).toMatchObject({
      ok: true,
      value: { page: 1_000_000, limit: 1 },
    });
    expectViolation(
      queryErrors(agentSummariesQuery, { start, page: '1000001' }),
      '/page',
      'page must be at most 1000000',
    );
    expectViolation(
      queryErrors(agentSummariesQuery, { start, page: '99999999999999999999' }),
      '/page',
      'page must be at most 1000000',
    );
  });
});
