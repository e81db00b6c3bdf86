import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ProviderNotification } from '@cc/contracts';
import type { TestCertificate } from './tls';

/** One request the endpoint received. */
export interface Received {
  at: number;
  headers: Record<string, string>;
  body: string;
  notifications: ProviderNotification[];
  /** The Standard Webhooks signature verified with one of the endpoint's secrets (checked here, independently). */
  signatureValid: boolean;
  /** The status it was answered with (undefined while hanging or when the connection died first). */
  answered?: number;
  answeredAt?: number;
}

/** How the endpoint answers a request: a status (with headers), or hang until released. */
export type Reply = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A real HTTPS provider endpoint for tests: records every request, verifies the HMAC signature
 * with its own code (no notifier code), and answers as the test's `reply` function says.
 */
export class ProviderEndpoint {
  readonly received: Received[] = [];
  reply: (r: Received, n: number) => Reply = () => ({ status: 200 });
  private server?: Server;
  private port = 0;
  private readonly hanging = new Set<() => void>();

  private constructor(
    private readonly tls: TestCertificate,
    /** The signing secrets the provider was given (`whsec_…`). */
    public secrets: string[],
    private readonly host: string,
  ) {}

  /** Starts an endpoint on an ephemeral port. */
  static async start(tls: TestCertificate, secrets: string[], host = '127.0.0.1'): Promise<ProviderEndpoint> {
    const ep = new ProviderEndpoint(tls, secrets, host);
    await ep.up();
    return ep;
  }

  /** The endpoint URL to register. */
  get url(): string {
    return `https://${this.host}:${this.port}/cc/notifications`;
  }

  /** Starts listening (again, on the same port after {@link down}). */
  async up(): Promise<void> {
    const server = createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
        );
        let notifications: ProviderNotification[] = [];
        try {
          notifications = JSON.parse(body) as ProviderNotification[];
        } catch {
          notifications = [];
        }
        const r: Received = {
          at: Date.now(),
          headers,
          body,
          notifications,
          signatureValid: this.verify(headers, body),
        };
        this.received.push(r);
        const reply = this.reply(r, this.received.length);
        if (reply === 'hang') {
          const release = () => {
            this.hanging.delete(release);
            if (!res.writableEnded && !res.destroyed) {
              r.answered = 200;
              r.answeredAt = Date.now();
              res.writeHead(200).end();
            }
          };
          this.hanging.add(release);
          return;
        }
        const answer = () => {
          if (res.destroyed) return;
          r.answered = reply.status;
          r.answeredAt = Date.now();
          res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) }).end('{}');
        };
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops every connection: attempts now fail with "connection refused". */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    this.hanging.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Answers every hanging request with 200. */
  releaseHanging(): void {
    for (const release of [...this.hanging]) release();
  }

  /** Requests still hanging (received, not answered). */
  hangingCount(): number {
    return this.hanging.size;
  }

  /** Requests of one notification id (= webhook-id). */
  byId(id: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === id);
  }

  private verify(headers: Record<string, string>, body: string): boolean {
    const id = headers['webhook-id'];
    const ts = headers['webhook-timestamp'];
    const sigs = (headers['webhook-signature'] ?? '').split(' ');
    if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
    return this.secrets.some((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`);
      return sigs.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
    });
  }
}
