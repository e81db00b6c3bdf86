import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { HostResolutionError, type ResolveHost } from '../domain/endpoint-policy';

/** The `dns.lookup` signature used (injectable for unit tests of the timeout). */
export type LookupAll = (host: string, options: { all: true; verbatim: true }) => Promise<LookupAddress[]>;

// EINVAL: getaddrinfo refused the name itself (too long, say): no DNS server would answer it either.
const notFound = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA', 'EINVAL']);

/**
 * Resolves a host the way the notifier's HTTP client will (getaddrinfo via `dns.lookup`, every A and AAAA
 * record), bounded by a timeout. Not-found or a name getaddrinfo refuses → `not-found`; no answer in time → `timeout`; other failures
 * (e.g. EAI_AGAIN) → `unavailable`. A timed-out lookup keeps its libuv thread until getaddrinfo returns.
 */
export function dnsResolver(timeoutMs: number, lookupAll: LookupAll = lookup as LookupAll): ResolveHost {
  return async (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new HostResolutionError('timeout', `no DNS answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      const found = await Promise.race([lookupAll(host, { all: true, verbatim: true }), timeout]);
      return found.map((a) => a.address);
    } catch (err) {
      if (err instanceof HostResolutionError) throw err;
      const code = (err as { code?: string }).code ?? 'lookup failed';
      throw new HostResolutionError(notFound.has(code) ? 'not-found' : 'unavailable', `DNS lookup failed: ${code}`);
    } finally {
      clearTimeout(timer);
    }
  };
}
