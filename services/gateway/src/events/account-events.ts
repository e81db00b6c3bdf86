import { type CloudEvent, newEvent } from '@cc/bus';
import type { FeatureFlags } from '../domain/feature-flags';

/** The topic the gateway owns: account settings other services keep a read model of. */
export const accountTopic = 'cc.account.v1';

/** `account.feature-flags-changed`: the full new set and which flags changed; subject and key are the account. */
export function featureFlagsChanged(p: {
  accountId: string;
  flags: FeatureFlags;
  changed: string[];
  traceparent?: string;
  now?: Date;
}): CloudEvent {
  const now = p.now ?? new Date();
  return newEvent({
    source: '/cc/gateway',
    type: 'account.feature-flags-changed',
    subject: p.accountId,
    accountId: p.accountId,
    data: { flags: { ...p.flags }, changed: p.changed, occurredAt: now.toISOString() },
    time: now,
    ...(p.traceparent ? { traceparent: p.traceparent } : {}),
  });
}
