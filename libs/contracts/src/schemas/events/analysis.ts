import { type JsonSchema, nullable, text } from '../../json-schema';
import { analysisItemV3 } from '../analysis';
import { guid, utcMillis } from '../common';

/** analysis.started: a recording is being analysed (status processing). */
export const analysisStarted: JsonSchema = {
  type: 'object',
  required: ['guid', 'recordingId', 'occurredAt'],
  properties: { guid, recordingId: guid, occurredAt: utcMillis },
};

/** analysis.completed: the analysis of a call is available (status processed). */
export const analysisCompleted: JsonSchema = {
  type: 'object',
  description: 'The result in the version 3 item shape (without transcript), plus when it completed.',
  required: ['guid', 'result', 'occurredAt'],
  properties: {
    guid,
    result: {
      ...analysisItemV3,
      required: (analysisItemV3.required ?? []).filter((k) => k !== 'transcript'),
    },
    occurredAt: utcMillis,
  },
};

/** analysis.failed: the analysis of a call failed (status failed). */
export const analysisFailed: JsonSchema = {
  type: 'object',
  required: ['guid', 'reason', 'occurredAt'],
  properties: { guid, reason: nullable(text(500)), occurredAt: utcMillis },
};

/** Data schema of each analysis event type. */
export const analysisEvents = {
  'analysis.started': analysisStarted,
  'analysis.completed': analysisCompleted,
  'analysis.failed': analysisFailed,
} as const satisfies Record<string, JsonSchema>;
