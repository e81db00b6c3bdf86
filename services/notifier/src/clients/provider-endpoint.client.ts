import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { type EndpointAllowlist, forbiddenAddress } from '../domain/address-policy';
import type { AttemptResult } from '../domain/outcome';
import { parseRetryAfter } from '../domain/schedule';

/** One POST of a notification. */
export interface EndpointRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

/** What {@link ProviderEndpointClient} needs. */
export interface ProviderEndpointClientOptions {
  /** Deadline of the whole attempt (connect, TLS, request, response). */
  timeoutMs: number;
  allowlist: EndpointAllowlist;
  /** Extra trusted CAs (PEM), added to the public roots. */
  extraCaPem?: string;
  userAgent?: string;
}

/** Raised inside the connection's DNS step when the endpoint resolves to a forbidden address. */
class ForbiddenAddressError extends Error {
  readonly code = 'ENDPOINT_FORBIDDEN';
}

/**
 * The one HTTP client for provider endpoints: Node's own `https.request` over a keep-alive agent
 * (no per-request client machinery on the hot path), a deadline per attempt, no redirects (a 3xx is a failed attempt), no proxies, and the SSRF rule applied where the
 * connection is made: the agent's DNS step refuses non-public addresses unless allowlisted, so the
 * address checked is the address connected to (no re-resolution in between). Never throws: every
 * outcome is an {@link AttemptResult}.
 */
export class ProviderEndpointClient {
  private readonly agent: Agent;

  constructor(private readonly opts: ProviderEndpointClientOptions) {
    const allowlist = opts.allowlist;
    const lookup = ((hostname: string, options: { family?: number; all?: boolean }, callback: LookupCallback) => {
      dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, '', 0);
        const bad = forbiddenAddress(
          hostname,
          addresses.map((a) => a.address),
          allowlist,
        );
        if (bad) {
          return callback(
            new ForbiddenAddressError(
              `endpoint host resolves to a non-public address (${bad}) not in ENDPOINT_ALLOWLIST`,
            ),
            '',
            0,
          );
        }
        if (options.all) return (callback as unknown as AllCallback)(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      });
    }) as unknown as LookupFunction;
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 64,
      maxFreeSockets: 32,
      timeout: 60_000,
      lookup,
      // One secure context for every connection: a `ca` option would be parsed per connection and
      // concatenated into the agent's pool key (~200 KB of PEM) on every request.
      ...(opts.extraCaPem
        ? { secureContext: createSecureContext({ ca: [...rootCertificates, opts.extraCaPem] }) }
        : {}),
    });
  }

  /** POSTs one notification and reports what happened (status, latency, Retry-After or the transport error). */
  async post(req: EndpointRequest): Promise<AttemptResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return { kind: 'error', error: 'endpoint is not a valid URL', latencyMs: 0 };
    }
    if (url.protocol !== 'https:') return { kind: 'error', error: 'endpoint is not https', latencyMs: 0 };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // IP literals skip the DNS step, so the SSRF rule is applied here for them.
    if (isIP(host)) {
      const bad = forbiddenAddress(host, [host], this.opts.allowlist);
      if (bad) {
        return {
          kind: 'error',
          error: `endpoint address ${bad} is not public and not in ENDPOINT_ALLOWLIST`,
          latencyMs: 0,
        };
      }
    }
    const headers: Record<string, string | number> = {
      ...req.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(req.body),
      'user-agent': this.opts.userAgent ?? 'cc-suite-notifier/1.0',
    };
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      const done = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      // Redirects are never followed (a 3xx is an answer); no proxy is consulted.
      const r = request(url, { method: 'POST', agent: this.agent, headers }, (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) {
            res.destroy();
            done({ kind: 'error', error: 'response too large', latencyMs: latency() });
          }
        });
        res.on('error', () => undefined);
        res.on('end', () => {
          const retryAfter = parseRetryAfter(headerOf(res.headers, 'retry-after'), Date.now());
          const location = headerOf(res.headers, 'location');
          done({
            kind: 'response',
            status: res.statusCode ?? 0,
            latencyMs: latency(),
            ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
            ...(location ? { location } : {}),
          });
        });
      });
      const timer = setTimeout(() => {
        done({ kind: 'error', error: `timeout: no response within ${this.opts.timeoutMs} ms`, latencyMs: latency() });
        r.destroy();
      }, this.opts.timeoutMs);
      r.on('error', (err) => done({ kind: 'error', error: describeError(err), latencyMs: latency() }));
      r.end(req.body);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

type LookupCallback = (err: Error | null, address: string, family: number) => void;
type AllCallback = (err: Error | null, addresses: LookupAddress[]) => void;

function headerOf(headers: unknown, name: string): string | undefined {
  const value = (headers as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** A short, secret-free description of a transport failure. */
function describeError(err: Error & { code?: string }): string {
  const code = err.code ?? '';
  if (code === 'ENDPOINT_FORBIDDEN' || err instanceof ForbiddenAddressError) return err.message;
  if (code === 'ETIMEDOUT' || code === 'ABORT_ERR') return 'timeout: no response in time';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'endpoint host not found';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) return `TLS: ${code}`;
  return `${code || err.name || 'error'}: ${(err.message ?? '').slice(0, 200)}`;
}

/** Larger answers are cut off (the notifier reads none of it). */
const maxResponseBytes = 1024 * 1024;
