import type { ProviderView } from '@cc/contracts';
import type { ProviderRecord } from '../app/provider.service';

/** What every registered header value is shown as. */
export const redacted = '<redacted>' as const;

/** A provider as the API shows it: header names with redacted values, never a stored secret. */
export function toProviderView(record: ProviderRecord, signingSecret?: string): ProviderView {
  return {
    provider: record.name,
    endpoint: record.endpoint,
    headers: Object.fromEntries(record.headerNames.map((name) => [name, redacted])),
    agentactionspermitted: record.agentactionspermitted,
    permissions: record.permissions,
    ...(signingSecret ? { signingSecret } : {}),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}
