import { type Invocation, invocation, limits, validateBody } from '../src/index';
import { bodyErrors, expectViolation } from './helpers/expect-violation';

const invoke = (...requests: unknown[]) => bodyErrors(invocation, { requests });

describe('Invocation (POST /interactions/Invoke)', () => {
  it('defaults action to dispatch', () => {
    const body = { requests: [{ route: 'Support' }] };
    const result = validateBody<Invocation>(invocation, body);
    expect(result.ok).toBe(true);
    expect(body.requests[0]).toEqual({ action: 'dispatch', route: 'Support' });
  });

  it('refuses an unknown action', () => {
    expectViolation(
      invoke({ action: 'cancel', route: 'x' }),
      '/requests/0/action',
      'action must be one of: dispatch, release',
    );
  });

  it('requires route on a dispatch, explicit or by default', () => {
    expectViolation(invoke({}), '/requests/0/route', 'route is required when action is dispatch');
    expectViolation(
      invoke({ action: 'dispatch', externalId: 'e' }),
      '/requests/0/route',
      'route is required when action is dispatch',
    );
  });

  it('requires externalId (either spelling) on a release', () => {
    expectViolation(
      invoke({ action: 'release' }),
      '/requests/0/externalId',
      'externalId is required when action is release',
    );
    expect(invoke({ action: 'release', externalid: 'case-1' })).toEqual([]);
    expect(invoke({ action: 'release', externalId: 'case-1', requestId: 'r' })).toEqual([]);
  });

  it('accepts only action, requestId and externalId on a release', () => {
    const errors = invoke({ action: 'release', externalId: 'e', route: 'Support', routingdata: {} });
    expectViolation(errors, '/requests/0/route', 'route is not allowed when action is release');
    expectViolation(errors, '/requests/0/routingdata', 'routingdata is not allowed when action is release');
  });

  it('accepts requestId/requestid and externalId/externalid but never both spellings at once', () => {
    expect(invoke({ requestid: 'r', externalid: 'e', route: 'x' })).toEqual([]);
    expectViolation(
      invoke({ requestId: 'a', requestid: 'b', route: 'x' }),
      '/requests/0/requestid',
      'requestid must not be given together with requestId',
    );
    expectViolation(
      invoke({ externalId: 'a', externalid: 'b', route: 'x' }),
      '/requests/0/externalid',
      'externalid must not be given together with externalId',
    );
  });

  it('requires one to 100 request objects', () => {
    expectViolation(bodyErrors(invocation, {}), '/requests', 'requests is required');
    expectViolation(invoke(), '/requests', 'requests must have at least 1 item');
    const many = Array.from({ length: limits.maxRequestsPerInvoke + 1 }, () => ({ route: 'x' }));
    expectViolation(invoke(...many), '/requests', 'requests must have at most 100 items');
    expect(invoke(...many.slice(1))).toEqual([]);
  });

  it('refuses unknown properties, naming them and the allowed ones', () => {
    expectViolation(
      bodyErrors(invocation, { requests: [{ route: 'x' }], extra: 1 }),
      '/extra',
      /^extra is not allowed \(allowed: provider, requests\)$/,
    );
    expectViolation(invoke({ route: 'x', priority: 1 }), '/requests/0/priority', /^priority is not allowed/);
  });

  it('bounds every string', () => {
    expectViolation(
      invoke({ route: 'x', requestId: 'r'.repeat(129) }),
      '/requests/0/requestId',
      'requestId must be at most 128 characters',
    );
    expectViolation(invoke({ route: 'r'.repeat(101) }), '/requests/0/route', 'route must be at most 100 characters');
    expectViolation(invoke({ route: '' }), '/requests/0/route', 'route must not be empty');
    expectViolation(invoke({ route: 'a\u0000b' }), '/requests/0/route', 'route must be 1 to 100 printable characters');
    expectViolation(
      bodyErrors(invocation, { provider: 7, requests: [{ route: 'x' }] }),
      '/provider',
      'provider must be a string',
    );
  });

  describe('linkeddata', () => {
    const linked = (...items: unknown[]) => invoke({ route: 'x', linkeddata: items });

    it('accepts the five types with their own properties', () => {
      expect(
        linked(
          { type: 'clid', value: '+441234567890' },
          { type: 'name', value: 'Case 1' },
          { type: 'mediatype', value: 'Email' },
          { type: 'url', label: 'Open', value: 'https://crm.example.com/1' },
          { type: 'url', label: 'Label only' },
          { type: 'interactionproperty', key: 'Priority', value: 'High' },
          { type: 'interactionproperty', key: 'Region', value: 'EMEA' },
        ),
      ).toEqual([]);
    });

    it.each(['clid', 'name', 'mediatype'])('limits the %s value to 50 characters', (type) => {
      expect(linked({ type, value: 'v'.repeat(50) })).toEqual([]);
      expectViolation(
        linked({ type, value: 'v'.repeat(51) }),
        '/requests/0/linkeddata/0/value',
        'value must be at most 50 characters',
      );
    });

    it('refuses an unknown type and a missing type', () => {
      expectViolation(
        linked({ type: 'phone', value: '1' }),
        '/requests/0/linkeddata/0/type',
        'type must be one of: clid, name, mediatype, url, interactionproperty',
      );
      expectViolation(linked({ value: '1' }), '/requests/0/linkeddata/0/type', 'type is required');
    });

    it("allows only each type's own properties", () => {
      expectViolation(
        linked({ type: 'clid', value: '1', label: 'x' }),
        '/requests/0/linkeddata/0/label',
        'label is not allowed (allowed: type, value)',
      );
      expectViolation(
        linked({ type: 'url', label: 'x', key: 'k' }),
        '/requests/0/linkeddata/0/key',
        'key is not allowed (allowed: type, label, value)',
      );
      expectViolation(
        linked({ type: 'interactionproperty', key: 'k', value: 'v', label: 'l' }),
        '/requests/0/linkeddata/0/label',
        /^label is not allowed/,
      );
    });

    it("requires each type's properties", () => {
      expectViolation(linked({ type: 'name' }), '/requests/0/linkeddata/0/value', 'value is required');
      expectViolation(
        linked({ type: 'url', value: 'https://x.example' }),
        '/requests/0/linkeddata/0/label',
        'label is required',
      );
      expectViolation(
        linked({ type: 'interactionproperty', value: 'v' }),
        '/requests/0/linkeddata/0/key',
        'key is required',
      );
    });

    it('requires a URL in a url item value', () => {
      expectViolation(
        linked({ type: 'url', label: 'x', value: 'not a url' }),
        '/requests/0/linkeddata/0/value',
        'value must be an absolute URL',
      );
    });

    it('bounds the number of items', () => {
      const items = Array.from({ length: limits.maxLinkedDataItems + 1 }, () => ({ type: 'clid', value: '1' }));
      expectViolation(linked(...items), '/requests/0/linkeddata', 'linkeddata must have at most 50 items');
    });
  });

  describe('routingdata', () => {
    const routing = (routingdata: unknown) => invoke({ route: 'x', routingdata });

    it('accepts the three interaction types only', () => {
      for (const t of ['live', 'chat', 'nonlive']) expect(routing({ interactiontype: t })).toEqual([]);
      expectViolation(
        routing({ interactiontype: 'email' }),
        '/requests/0/routingdata/interactiontype',
        'interactiontype must be one of: live, chat, nonlive',
      );
    });

    it('limits skill expiryafter to an integer from 0 to 2678399', () => {
      expect(
        routing({ skills: [{ name: 'a' }, { name: 'b', expiryafter: 0 }, { name: 'c', expiryafter: 2678399 }] }),
      ).toEqual([]);
      const at = '/requests/0/routingdata/skills/0/expiryafter';
      expectViolation(
        routing({ skills: [{ name: 'a', expiryafter: 2678400 }] }),
        at,
        'expiryafter must be at most 2678399',
      );
      expectViolation(routing({ skills: [{ name: 'a', expiryafter: -1 }] }), at, 'expiryafter must be at least 0');
      expectViolation(routing({ skills: [{ name: 'a', expiryafter: 1.5 }] }), at, 'expiryafter must be an integer');
      expectViolation(
        routing({ skills: [{ expiryafter: 5 }] }),
        '/requests/0/routingdata/skills/0/name',
        'name is required',
      );
    });

    it('requires all three personal-queue properties, each at most 2678399', () => {
      const pq = '/requests/0/routingdata/personalqueue';
      expect(routing({ personalqueue: { agent: 'jane', loggedintimeout: 2678399, loggedouttimeout: 0 } })).toEqual([]);
      const missing = routing({ personalqueue: { agent: 'jane' } });
      expectViolation(missing, `${pq}/loggedintimeout`, 'loggedintimeout is required');
      expectViolation(missing, `${pq}/loggedouttimeout`, 'loggedouttimeout is required');
      expectViolation(
        routing({ personalqueue: { loggedintimeout: 1, loggedouttimeout: 1 } }),
        `${pq}/agent`,
        'agent is required',
      );
      expectViolation(
        routing({ personalqueue: { agent: 'jane', loggedintimeout: 2678400, loggedouttimeout: 1 } }),
        `${pq}/loggedintimeout`,
        'loggedintimeout must be at most 2678399',
      );
      expectViolation(
        routing({ personalqueue: { agent: 'jane', loggedintimeout: 1, loggedouttimeout: 2678400 } }),
        `${pq}/loggedouttimeout`,
        'loggedouttimeout must be at most 2678399',
      );
    });

    it('refuses unknown routing properties', () => {
      expectViolation(
        routing({ priority: 1 }),
        '/requests/0/routingdata/priority',
        'priority is not allowed (allowed: interactiontype, skills, personalqueue)',
      );
    });
  });

  it('reports every violation of a body breaking several rules, one pointer each', () => {
    const errors = invoke(
      { action: 'release' },
      { linkeddata: [{ type: 'clid', value: 'x'.repeat(51) }], route: 'x', routingdata: { interactiontype: 'fax' } },
      {},
    );
    expect(errors.map((e) => e.pointer)).toEqual([
      '/requests/0/externalId',
      '/requests/1/linkeddata/0/value',
      '/requests/1/routingdata/interactiontype',
      '/requests/2/route',
    ]);
  });
});
