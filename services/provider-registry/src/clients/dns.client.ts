import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { HostResolutionError, type ResolveHost } from '../domain/endpoint-policy';

/** The `dns.lookup` signature used (injectable for unit tests of the timeout). */
export type LookupAll = (host: string, options: { all: true; verbatim: true }) => Promise<LookupAddress[]>;

// EINVAL: getaddrinfo refused the name itself (too long, say): no DNS server would answer it either.
const notFound = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA', 'EINVAL']);

/**
 * Lookups (getaddrinfo calls) still running, abandoned ones included, past which a registration answers
 * `unavailable` at once: each holds one of libuv's 4 threads until glibc gives up (10-30 s when a name server
 * never answers), and the store's and the broker's own lookups need those threads too.
 */
const defaultMaxRunning = 3;

/**
 * Resolves a host the way the notifier's HTTP client will (getaddrinfo via `dns.lookup`, every A and AAAA
 * record), bounded by `timeoutMs` in all. One lost UDP packet must not fail a registration: glibc asks again
 * only after 5 s, so when the first lookup has not answered at half the budget, or failed with anything but
 * not-found (EAI_AGAIN: the server failed or did not answer), a second lookup starts, and the first answer of
 * either counts; no second lookup at half the budget while another of this resolver is still running (a stuck
 * name server would hold twice the threads). Not-found or a name getaddrinfo refuses → `not-found`; no answer in time →
 * `timeout`; both lookups failed otherwise, or `maxRunning` lookups already running → `unavailable`.
 */
export function dnsResolver(
  timeoutMs: number,
  lookupAll: LookupAll = lookup as LookupAll,
  maxRunning = defaultMaxRunning,
): ResolveHost {
  let running = 0;
  return (host) =>
    new Promise<string[]>((resolve, reject) => {
      if (running >= maxRunning) {
        reject(new HostResolutionError('unavailable', `${running} DNS lookups are still waiting for an answer`));
        return;
      }
      let settled = false;
      let started = 0;
      let failed = 0;
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(hedge);
        clearTimeout(deadline);
        settle();
      };
      const attempt = (): void => {
        started++;
        running++;
        Promise.resolve()
          .then(() => lookupAll(host, { all: true, verbatim: true }))
          .finally(() => running--)
          .then(
            (found) => {
              const addresses = found.map((a) => a.address);
              finish(() => resolve(addresses));
            },
            (err: unknown) => {
              failed++;
              const code = (err as { code?: unknown } | null)?.code;
              const error = new HostResolutionError(
                typeof code === 'string' && notFound.has(code) ? 'not-found' : 'unavailable',
                `DNS lookup failed: ${typeof code === 'string' ? code : 'lookup failed'}`,
              );
              if (error.reason === 'not-found' || failed === 2) finish(() => reject(error));
              else if (started === 1 && running < maxRunning)
                attempt(); // this one's thread is free again
              else if (started === 1) finish(() => reject(error));
              // else the other lookup is still running: its answer or the deadline settles
            },
          )
          .catch((err: unknown) => finish(() => reject(err))); // an answer that is not a list of addresses
      };
      const hedge = setTimeout(() => {
        if (started === 1 && running === 1) attempt();
      }, timeoutMs / 2);
      const deadline = setTimeout(
        () => finish(() => reject(new HostResolutionError('timeout', `no DNS answer within ${timeoutMs} ms`))),
        timeoutMs,
      );
      attempt();
    });
}
