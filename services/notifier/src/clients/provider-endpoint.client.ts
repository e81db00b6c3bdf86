import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import axios, { type AxiosError, type AxiosInstance } from 'axios';
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
 * The one HTTP client for provider endpoints: axios over a keep-alive HTTPS agent, a deadline per
 * attempt, no redirects (a 3xx is a failed attempt), no proxies, and the SSRF rule applied where the
 * connection is made: the agent's DNS step refuses non-public addresses unless allowlisted, so the
 * address checked is the address connected to (no re-resolution in between). Never throws: every
 * outcome is an {@link AttemptResult}.
 */
export class ProviderEndpointClient {
  private readonly agent: Agent;
  private readonly http: AxiosInstance;

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
      maxSockets: 16,
      maxFreeSockets: 4,
      timeout: 60_000,
      lookup,
      ...(opts.extraCaPem ? { ca: [...rootCertificates, opts.extraCaPem] } : {}),
    });
    this.http = axios.create({
      httpsAgent: this.agent,
      maxRedirects: 0,
      proxy: false,
      timeout: opts.timeoutMs,
      validateStatus: () => true,
      responseType: 'arraybuffer',
      maxContentLength: 1024 * 1024,
      transformResponse: [(d: unknown) => d],
      decompress: true,
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
    try {
      const res = await this.http.post(url.toString(), req.body, {
        headers: {
          ...req.headers,
          'content-type': 'application/json',
          'user-agent': this.opts.userAgent ?? 'cc-suite-notifier/1.0',
        },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      const retryAfter = parseRetryAfter(headerOf(res.headers, 'retry-after'), Date.now());
      const location = headerOf(res.headers, 'location');
      return {
        kind: 'response',
        status: res.status,
        latencyMs: latency(),
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
        ...(location ? { location } : {}),
      };
    } catch (err) {
      return { kind: 'error', error: describeError(err as AxiosError, this.opts.timeoutMs), latencyMs: latency() };
    }
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
function describeError(err: AxiosError, timeoutMs: number): string {
  const cause = (err.cause ?? {}) as { code?: string; message?: string };
  const code = cause.code ?? err.code ?? '';
  if (code === 'ENDPOINT_FORBIDDEN') return cause.message ?? 'endpoint address not allowed';
  if (
    code === 'ECONNABORTED' ||
    code === 'ETIMEDOUT' ||
    code === 'ERR_CANCELED' ||
    code === 'ABORT_ERR' ||
    err.name === 'CanceledError'
  ) {
    return `timeout: no response within ${timeoutMs} ms`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'endpoint host not found';
  if (code === 'ERR_FR_MAX_BODY_LENGTH_EXCEEDED' || code === 'ERR_BAD_RESPONSE') return 'response too large';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) return `TLS: ${code}`;
  return `${code || err.name || 'error'}: ${(err.message ?? '').slice(0, 200)}`;
}
