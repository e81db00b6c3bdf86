import {
  agentActionsPermitted,
  limits,
  providerNotificationBody,
  providerSettings,
  registerArrayHeadersExample,
  registerExample,
  registerNoEndpointExample,
} from '../src/index';
import { bodyErrors, expectViolation } from './helpers/expect-violation';

const register = (patch: Record<string, unknown>) =>
  bodyErrors(providerSettings, { provider: 'AcmeCRM', agentactionspermitted: { release: 1 }, ...patch });

const authMessage = /must have the form "<type> <credentials>"/;

describe('ProviderSettings (POST /interactions/Register)', () => {
  it('accepts the spec shapes: headers as a map, as key-value pairs, and no endpoint', () => {
    for (const example of [registerExample, registerArrayHeadersExample, registerNoEndpointExample]) {
      expect(bodyErrors(providerSettings, example)).toEqual([]);
    }
    expect(register({ endpoint: null })).toEqual([]);
  });

  it('requires provider and agentactionspermitted', () => {
    const errors = bodyErrors(providerSettings, {});
    expectViolation(errors, '/provider', 'provider is required');
    expectViolation(errors, '/agentactionspermitted', 'agentactionspermitted is required');
  });

  it('allows only 0 or 1 for the four known operations', () => {
    expect(bodyErrors(agentActionsPermitted, { release: 0, hold: 1, transferToAgent: 1, transferToRoute: 0 })).toEqual(
      [],
    );
    expectViolation(
      register({ agentactionspermitted: { release: 2 } }),
      '/agentactionspermitted/release',
      'release must be one of: 0, 1',
    );
    expectViolation(
      register({ agentactionspermitted: { hold: true } }),
      '/agentactionspermitted/hold',
      'hold must be an integer',
    );
    expectViolation(
      register({ agentactionspermitted: { transfer: 1 } }),
      '/agentactionspermitted/transfer',
      'transfer is not allowed (allowed: release, hold, transferToAgent, transferToRoute)',
    );
  });

  it('requires an Authorization header value of the form <type> <credentials>, in either header form', () => {
    expect(register({ headers: { Authorization: 'Basic dXNlcjpwYXNz' } })).toEqual([]);
    expect(register({ headers: [{ key: 'authorization', value: 'Bearer a.b.c' }] })).toEqual([]);
    expectViolation(register({ headers: { Authorization: 'Bearer' } }), '/headers/Authorization', authMessage);
    expectViolation(register({ headers: { AUTHORIZATION: ' token' } }), '/headers/AUTHORIZATION', authMessage);
    expectViolation(register({ headers: { authorization: 'Bearer  x' } }), '/headers/authorization', authMessage);
    expectViolation(
      register({ headers: [{ key: 'Authorization', value: 'token-only' }] }),
      '/headers/0/value',
      authMessage,
    );
  });

  it('refuses CR/LF in header values and invalid or reserved header names', () => {
    expectViolation(
      register({ headers: { 'X-A': 'a\r\nX-Injected: 1' } }),
      '/headers/X-A',
      'X-A must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)',
    );
    // Non-ASCII too: the schema is the one rule (the registry's code once refused it beside a schema that allowed it).
    expectViolation(
      register({ headers: { 'X-A': 'caf\u00e9' } }),
      '/headers/X-A',
      'X-A must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)',
    );
    expectViolation(
      register({ headers: [{ key: 'X-A', value: 'a\nb' }] }),
      '/headers/0/value',
      /value must contain only printable ASCII characters or tabs/,
    );
    expectViolation(
      register({ headers: { 'bad name': 'x' } }),
      '/headers/bad name',
      /"bad name" must be an HTTP header name/,
    );
    expectViolation(
      register({ headers: { 'Content-Type': 'text/plain' } }),
      '/headers/Content-Type',
      /"Content-Type" is set by the service/,
    );
    expectViolation(
      register({ headers: [{ key: 'webhook-signature', value: 'v1,x' }] }),
      '/headers/0/key',
      'key is set by the service and cannot be registered',
    );
  });

  it('describes headers as a map or an array of key-value pairs, bounded', () => {
    expectViolation(
      register({ headers: 'Authorization: Basic x' }),
      '/headers',
      'headers must be an object or an array',
    );
    expectViolation(register({ headers: [{ key: 'X-A' }] }), '/headers/0/value', 'value is required');
    expectViolation(
      register({ headers: [{ key: 'X-A', value: 'a', extra: 1 }] }),
      '/headers/0/extra',
      'extra is not allowed (allowed: key, value)',
    );
    const many = Object.fromEntries(Array.from({ length: limits.maxProviderHeaders + 1 }, (_, i) => [`X-H${i}`, 'v']));
    expectViolation(register({ headers: many }), '/headers', 'headers must have at most 20 properties');
    const manyPairs = Array.from({ length: limits.maxProviderHeaders + 1 }, (_, i) => ({ key: `X-H${i}`, value: 'v' }));
    expectViolation(register({ headers: manyPairs }), '/headers', 'headers must have at most 20 items');
    expectViolation(
      register({ headers: { 'X-A': 'v'.repeat(4097) } }),
      '/headers/X-A',
      'X-A must be at most 4096 characters',
    );
  });

  it('requires an https endpoint without credentials', () => {
    const message = 'endpoint must be an absolute https URL without credentials';
    expectViolation(register({ endpoint: 'http://crm.example.com/hook' }), '/endpoint', message);
    expectViolation(register({ endpoint: 'https://user:pw@crm.example.com/hook' }), '/endpoint', message);
    expectViolation(register({ endpoint: 'crm.example.com' }), '/endpoint', message);
    expectViolation(
      register({ endpoint: `https://x.example/${'a'.repeat(2048)}` }),
      '/endpoint',
      'endpoint must be at most 2048 characters',
    );
  });

  it('refuses unknown properties', () => {
    expectViolation(
      register({ secret: 'x' }),
      '/secret',
      'secret is not allowed (allowed: provider, endpoint, headers, agentactionspermitted)',
    );
  });
});

describe('provider notification body', () => {
  it('refuses an unknown notification kind', () => {
    const errors = bodyErrors(providerNotificationBody, [
      {
        notification: 'Assign',
        objectid: '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34',
        notificationid: '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e35',
        externalId: null,
        params: {
          AccountName: 'A',
          AccountId: 'a',
          Agent: 'j',
          AgentId: 'x',
          InteractionType: 'live',
          OccurredAt: '2024-05-01T08:00:00.000Z',
        },
      },
    ]);
    expectViolation(errors, '/0/notification', 'notification must be one of: AssignToAgent, Release');
  });
});
