import { eventSchemas, validateEventData } from '@cc/contracts';
import { createSecretBox } from '@cc/kit';
import { openSealed, providerDeletedEvent, providerStateEvent, sealedEventAad } from '../../src/events/provider.events';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const box = createSecretBox(`k2:${key(2)},k1:${key(1)}`);
const now = new Date('2024-05-01T08:00:00.000Z');
const state = {
  accountId: 'acme',
  name: 'AcmeCRM',
  endpoint: 'https://crm.example.com/cc',
  headers: [{ name: 'Authorization', value: 'Bearer top-secret-token' }],
  agentactionspermitted: { hold: 1 as const },
  permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
  signingSecrets: [
    { secret: 'whsec_current', createdAt: now, validUntil: null },
    { secret: 'whsec_previous', createdAt: now, validUntil: new Date('2024-05-02T08:00:00.000Z') },
  ],
  version: 3,
};

describe('provider events', () => {
  it('carry the state routing and the notifier need, valid against the contract, secrets only sealed', () => {
    const event = providerStateEvent(box, 'provider.updated', state, now, { reason: 'signing-secret-rotated' });
    expect(validateEventData('provider.updated', event.data)).toEqual({ ok: true, value: event.data });
    expect(eventSchemas['provider.updated']).toBeDefined();
    expect(event).toMatchObject({
      type: 'provider.updated',
      subject: 'AcmeCRM',
      accountid: 'acme',
      source: '/cc/provider-registry',
    });
    expect(event.data).toMatchObject({
      provider: 'AcmeCRM',
      headerNames: ['Authorization'],
      permissions: state.permissions,
      version: 3,
      reason: 'signing-secret-rotated',
    });
    const json = JSON.stringify(event);
    for (const secret of ['top-secret-token', 'whsec_current', 'whsec_previous']) expect(json).not.toContain(secret);
    expect(event.data.sealed.kid).toBe('k2');
  });

  it('can be opened by the notifier with the shared keys and the AAD built from the event, and nothing else', () => {
    const event = providerStateEvent(box, 'provider.registered', state, now);
    const aad = sealedEventAad(event.accountid, event.data.provider, event.data.version);
    expect(aad).toBe('["cc.provider.v1","acme","AcmeCRM",3]');
    const notifierBox = createSecretBox(`k2:${key(2)}`);
    expect(openSealed(notifierBox, aad, event.data.sealed)).toEqual({
      headers: [{ key: 'Authorization', value: 'Bearer top-secret-token' }],
      signingSecrets: [
        { secret: 'whsec_current', validUntil: null },
        { secret: 'whsec_previous', validUntil: '2024-05-02T08:00:00.000Z' },
      ],
    });
    expect(() => openSealed(notifierBox, sealedEventAad('other', 'AcmeCRM', 3), event.data.sealed)).toThrow();
    expect(() => openSealed(notifierBox, sealedEventAad('acme', 'AcmeCRM', 2), event.data.sealed)).toThrow();
    expect(() => openSealed(createSecretBox(`k2:${key(9)}`), aad, event.data.sealed)).toThrow();
  });

  it('provider.deleted carries the name and the version', () => {
    const event = providerDeletedEvent('acme', 'AcmeCRM', 4, now);
    expect(event.data).toEqual({ provider: 'AcmeCRM', version: 4, occurredAt: '2024-05-01T08:00:00.000Z' });
    expect(validateEventData('provider.deleted', event.data).ok).toBe(true);
  });
});
