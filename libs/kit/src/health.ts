/** A named dependency check for `/readyz`; resolves when the dependency answers, rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** Holds the service's readiness checks and its draining flag (readiness off during shutdown). */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();
  private draining = false;

  /** Adds a dependency to check on every `/readyz`. */
  add(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  /** Turns readiness off for good (SIGTERM received). */
  drain(): void {
    this.draining = true;
  }

  /** Runs every check with a per-check timeout; `ok` only when all pass and the service is not draining. */
  async evaluate(timeoutMs = 2000): Promise<{ ok: boolean; checks: Record<string, string> }> {
    const results: Record<string, string> = {};
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            check(),
            new Promise((_, reject) => {
              timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
            }),
          ]);
          results[name] = 'ok';
        } catch (err) {
          results[name] = `failing: ${(err as Error).message}`;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    if (this.draining) results.shutdown = 'draining';
    return { ok: !this.draining && Object.values(results).every((r) => r === 'ok'), checks: results };
  }
}
