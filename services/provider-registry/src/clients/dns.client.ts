import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { HostResolutionError, type ResolveHost } from '../domain/endpoint-policy';

/** The `dns.lookup` signature used (injectable for unit tests of the timeout). */
export type LookupAll = (host: string, options: { all: true; verbatim: true }) => Promise<LookupAddress[]>;

// EINVAL: getaddrinfo refused the name itself (too long, say): no DNS server would answer it either.
const notFound = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA', 'EINVAL']);

/**
 * Abandoned lookups (still running after their registration was answered) from which on a registration answers
 * `unavailable` at once: each holds one of libuv's 4 threads until glibc gives up (10-30 s when a name server never
 * answers), and the store's and the broker's own lookups need those threads too.
 */
const defaultMaxAbandoned = 3;

/**
 * Resolves a host the way the notifier's HTTP client will (getaddrinfo via `dns.lookup`, every A and AAAA
 * record), bounded by `timeoutMs` in all. One lost UDP packet must not fail a registration: glibc asks again
 * only after 5 s, so when the first lookup has not answered at half the budget, or failed with anything but
 * not-found (EAI_AGAIN: the server failed or did not answer), a second lookup starts, and the first answer of
 * either counts. Not-found or a name getaddrinfo refuses → `not-found`; no answer in time → `timeout`; both
 * lookups failed otherwise → `unavailable`. Lookups left running when their registration is answered count as
 * abandoned until they return: with `maxAbandoned` of them a registration answers `unavailable` at once, and
 * with more than one no second lookup starts at half the budget (a stuck name server would hold twice the threads).
 */
export function dnsResolver(
  timeoutMs: number,
  lookupAll: LookupAll = lookup as LookupAll,
  maxAbandoned = defaultMaxAbandoned,
): ResolveHost {
  let abandoned = 0;
  return (host) =>
    new Promise<string[]>((resolve, reject) => {
      if (abandoned >= maxAbandoned) {
        reject(new HostResolutionError('unavailable', `${abandoned} DNS lookups are still waiting for an answer`));
        return;
      }
      let settled = false;
      let started = 0;
      let failed = 0;
      let running = 0; // this registration's lookups
      let orphans = 0; // of them, left running when it was answered (counted in `abandoned`)
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(hedge);
        clearTimeout(deadline);
        orphans = running;
        abandoned += orphans;
        settle();
      };
      const attempt = (): void => {
        started++;
        running++;
        Promise.resolve()
          .then(() => lookupAll(host, { all: true, verbatim: true }))
          .then((found) => {
            if (!Array.isArray(found)) throw new Error('no address list');
            return found.map((a) => String(a.address));
          })
          .finally(() => {
            running--;
            if (orphans > 0) {
              orphans--;
              abandoned--;
            }
          })
          .then(
            (addresses) => finish(() => resolve(addresses)),
            (err: unknown) => {
              if (settled) return; // answered already (the deadline): no further lookup, which nothing would count
              failed++;
              const code = (err as { code?: unknown } | null)?.code;
              const error = new HostResolutionError(
                typeof code === 'string' && notFound.has(code) ? 'not-found' : 'unavailable',
                `DNS lookup failed: ${typeof code === 'string' ? code : ((err as Error | null)?.message ?? 'no answer')}`,
              );
              if (error.reason === 'not-found' || failed === 2) finish(() => reject(error));
              else if (started === 1 && abandoned < maxAbandoned)
                attempt(); // this one's thread is free again
              else if (started === 1) finish(() => reject(error));
              // else the other lookup is still running: its answer or the deadline settles
            },
          )
          .catch((err: unknown) => finish(() => reject(err)));
      };
      const hedge = setTimeout(() => {
        if (started === 1 && abandoned + 2 <= maxAbandoned) attempt();
      }, timeoutMs / 2);
      const deadline = setTimeout(
        () => finish(() => reject(new HostResolutionError('timeout', `no DNS answer within ${timeoutMs} ms`))),
        timeoutMs,
      );
      attempt();
    });
}
