import { type DestinationStream, type Logger, pino } from 'pino';
import { traceLogFields } from './tracing';

export type { Logger } from 'pino';

/** Paths censored in every log line: credentials, provider headers, phone numbers. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.clientSecret',
  '*.apiToken',
  '*.headers',
  '*.signingSecret',
  '*.authorization',
  '*.Authorization',
  '*.clid',
  '*.connectTo',
  '*.connectFrom',
  '*.phoneNumber',
];

/** Creates the service's root JSON logger; use `logger.child({...})` for request and message scopes. */
export function createLogger(service: string, level = 'info', destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceLogFields, // trace_id and span_id of the active span, to find a request's lines
    },
    destination as DestinationStream | undefined,
  );
}
