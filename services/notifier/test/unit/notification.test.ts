import { randomBytes } from 'node:crypto';
import { providerNotificationBody, validateBody } from '@cc/contracts';
import { createSecretBox } from '@cc/kit';
import { buildNotification, deliveryIdFor, notificationBody } from '../../src/domain/notification';
import { openDeliverySecrets, providerHeaders, sealedAad } from '../../src/domain/sealed-secrets';

describe('notification body', () => {
  it('derives a stable GUID delivery id per event and kind', () => {
    const a = deliveryIdFor('event-1', 'AssignToAgent');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deliveryIdFor('event-1', 'AssignToAgent')).toBe(a);
    expect(deliveryIdFor('event-1', 'Release')).not.toBe(a);
    expect(deliveryIdFor('event-2', 'AssignToAgent')).not.toBe(a);
  });

  it('builds the array providers parse, valid against the contract', () => {
    const id = deliveryIdFor('e', 'Release');
    const body = notificationBody(
      buildNotification({
        kind: 'Release',
        deliveryId: id,
        accountId: 'acme',
        accountName: 'acme',
        interactionId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
        externalId: 'case-1',
        provider: 'AcmeCRM',
        interactionType: 'live',
        agentId: '1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
        agentUsername: 'jane.doe',
        route: 'Support',
        requestId: 'req-1',
        occurredAt: '2024-05-01T08:00:00.000Z',
        releasedBy: 'agent',
      }),
    );
    const parsed = JSON.parse(body);
    expect(validateBody(providerNotificationBody, parsed)).toMatchObject({ ok: true });
    expect(parsed[0]).toMatchObject({
      notification: 'Release',
      notificationid: id,
      objectid: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      externalId: 'case-1',
      params: { AccountId: 'acme', Agent: 'jane.doe', ReleasedBy: 'agent', Route: 'Support' },
    });
  });
});

describe('sealed delivery secrets', () => {
  const box = createSecretBox(`k1:${randomBytes(32).toString('base64')}`);
  const seal = (plain: unknown, aad: string) => {
    const [, kid, iv, tag, ciphertext] = box.seal(JSON.stringify(plain), aad).split('.');
    return {
      kid: kid as string,
      alg: 'A256GCM' as const,
      iv: iv as string,
      tag: tag as string,
      ciphertext: ciphertext as string,
    };
  };

  it('opens what was sealed for the same account and provider', () => {
    const plain = {
      headers: [
        { key: 'Authorization', value: 'Bearer t' },
        { key: 'webhook-id', value: 'spoof' },
      ],
      signingSecrets: [{ secret: 'whsec_abc', validUntil: null }],
    };
    const opened = openDeliverySecrets(box, seal(plain, sealedAad('acme', 'CRM', 1)), sealedAad('acme', 'CRM', 1));
    expect(opened.signingSecrets).toEqual([{ secret: 'whsec_abc', validUntil: null }]);
    expect(providerHeaders(opened)).toEqual({ Authorization: 'Bearer t' });
  });

  it('refuses a value sealed for another provider, without leaking it', () => {
    const sealed = seal(
      { headers: [{ key: 'Authorization', value: 'Bearer SECRET' }], signingSecrets: [] },
      sealedAad('acme', 'A', 1),
    );
    expect(() => openDeliverySecrets(box, sealed, sealedAad('acme', 'B', 1))).toThrow(/do not open/);
    expect(() => openDeliverySecrets(box, sealed, sealedAad('acme', 'A', 2))).toThrow(/do not open/);
    try {
      openDeliverySecrets(box, sealed, sealedAad('acme', 'B', 1));
    } catch (err) {
      expect(String(err)).not.toContain('SECRET');
    }
  });
});
