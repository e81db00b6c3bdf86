/**
 * Runs a service's entry point (its `src/main.ts`): `start` loads the config and starts the service, whose runtime
 * handles SIGTERM/SIGINT. A config that does not validate exits 78 from the loader; any other failure to start is
 * one fatal JSON line on stderr (the logger may not exist yet) and exit 1.
 */
export function runMain(service: string, start: () => Promise<unknown>): void {
  Promise.resolve()
    .then(start)
    .catch((err) => {
      process.stderr.write(
        `${JSON.stringify({ level: 'fatal', service, msg: 'failed to start', err: String(err?.stack ?? err) })}\n`,
      );
      process.exit(1);
    });
}
