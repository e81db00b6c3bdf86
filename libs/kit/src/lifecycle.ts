import type { Server } from 'node:http';
import type { Readiness } from './health';
import type { Logger } from './logger';

/** A step of graceful shutdown, run in registration order (e.g. consumers, then producer, then store). */
export type ShutdownStep = { name: string; run: () => Promise<void> };

/**
 * On SIGTERM/SIGINT: readiness off, stop accepting connections, run the steps in order, exit 0;
 * exit 1 if the deadline passes first. Returns a function that triggers the same shutdown.
 */
export function handleShutdown(opts: {
  logger: Logger;
  readiness: Readiness;
  server?: Server;
  steps: ShutdownStep[];
  deadlineMs?: number;
  exit?: (code: number) => void;
  /** Listen for SIGTERM/SIGINT (default true; false for services started inside tests). */
  signals?: boolean;
}): (reason: string) => Promise<void> {
  const { logger, readiness, server, steps } = opts;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let started: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    started ??= (async () => {
      logger.info({ reason }, 'shutting down');
      readiness.drain();
      const deadline = setTimeout(() => {
        logger.error({ deadlineMs: opts.deadlineMs ?? 25000 }, 'shutdown deadline passed; exiting');
        exit(1);
      }, opts.deadlineMs ?? 25000);
      deadline.unref();
      let code = 0;
      if (server) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
      }
      for (const step of steps) {
        try {
          await step.run();
        } catch (err) {
          code = 1;
          logger.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(deadline);
      logger.info({ code }, 'stopped');
      exit(code);
    })();
    return started;
  };
  if (opts.signals !== false) {
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  }
  return shutdown;
}
