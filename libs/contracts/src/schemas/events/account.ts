import type { JsonSchema } from '../../json-schema';
import { utcMillis } from '../common';

/** account.feature-flags-changed: the account's feature flags changed (the full new set). */
export const featureFlagsChanged: JsonSchema = {
  type: 'object',
  description: 'The full set of flags after the change, and which changed. Consumers keep the latest by occurredAt.',
  required: ['flags', 'changed', 'occurredAt'],
  properties: {
    flags: {
      type: 'object',
      required: ['agentSummaries', 'conversationAnalysis', 'v0Statistics'],
      properties: {
        agentSummaries: { type: 'boolean' },
        conversationAnalysis: { type: 'boolean' },
        v0Statistics: { type: 'boolean' },
      },
    },
    changed: { type: 'array', items: { type: 'string', maxLength: 100 }, maxItems: 50 },
    occurredAt: utcMillis,
  },
};

/** Data schema of each account event type. */
export const accountEvents = {
  'account.feature-flags-changed': featureFlagsChanged,
} as const satisfies Record<string, JsonSchema>;
