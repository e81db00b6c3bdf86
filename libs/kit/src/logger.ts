import { type DestinationStream, type Logger, pino, destination as pinoDestination } from 'pino';

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
    },
    // Default: stdout written asynchronously (sonic-boom coalesces lines while a write is in flight; flushed
    // synchronously on exit), so a request never waits for its access-log line to reach the terminal.
    (destination as DestinationStream | undefined) ?? pinoDestination({ dest: 1, sync: false }),
  );
}
