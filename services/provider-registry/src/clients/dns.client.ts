import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { HostResolutionError, type ResolveHost } from '../domain/endpoint-policy';

/** The `dns.lookup` signature used (injectable for unit tests of the timeout). */
export type LookupAll = (host: string, options: { all: true; verbatim: true }) => Promise<LookupAddress[]>;

// EINVAL: getaddrinfo refused the name itself (too long, say): no DNS server would answer it either.
const notFound = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA', 'EINVAL']);

/**
 * Resolves a host the way the notifier's HTTP client will (getaddrinfo via `dns.lookup`, every A and AAAA
 * record), bounded by `timeoutMs` in all. One lost UDP packet must not fail a registration: glibc asks again
 * only after 5 s, so when the first lookup has not answered at half the budget, or failed transiently
 * (EAI_AGAIN: the server failed or did not answer), a second lookup starts and the first answer of either
 * counts. Not-found or a name getaddrinfo refuses → `not-found`; no answer in time → `timeout`; both lookups
 * failed otherwise → `unavailable`. A timed-out lookup keeps its libuv thread until getaddrinfo returns.
 */
export function dnsResolver(timeoutMs: number, lookupAll: LookupAll = lookup as LookupAll): ResolveHost {
  return (host) =>
    new Promise<string[]>((resolve, reject) => {
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
        Promise.resolve()
          .then(() => lookupAll(host, { all: true, verbatim: true }))
          .then(
            (found) => finish(() => resolve(found.map((a) => a.address))),
            (err: unknown) => {
              failed++;
              const code = (err as { code?: string }).code ?? 'lookup failed';
              const error = new HostResolutionError(
                notFound.has(code) ? 'not-found' : 'unavailable',
                `DNS lookup failed: ${code}`,
              );
              if (error.reason === 'not-found' || failed === 2) finish(() => reject(error));
              else if (started === 1) attempt();
            },
          );
      };
      const hedge = setTimeout(() => {
        if (started === 1) attempt();
      }, timeoutMs / 2);
      const deadline = setTimeout(
        () => finish(() => reject(new HostResolutionError('timeout', `no DNS answer within ${timeoutMs} ms`))),
        timeoutMs,
      );
      attempt();
    });
}
