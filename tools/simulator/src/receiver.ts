import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type NotificationItem, verifySignature } from './webhook';

/** One notification item as it arrived. */
export interface Arrival {
  key: string;
  webhookId: string;
  item: NotificationItem;
  at: number;
  /** `x-request-id` of the POST (`<webhook-id>:<attempt>` from this suite's notifier). */
  requestId?: string;
}

/**
 * The simulated provider's https endpoint: verifies every POST's Standard Webhooks signature and the
 * registered header, records each item under `<kind> <interactionId>` with its webhook-id, answers 204
 * (401 on a bad signature, so the notifier retries and the failure shows).
 */
export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  badSignatures = 0;
  badHeaders = 0;
  secrets: string[] = [];
  onArrival: (a: Arrival) => void = () => undefined;

  private constructor(
    private readonly server: Server,
    private readonly headerToken: string,
  ) {}

  /** Starts the receiver on host:port (0 = any free port). */
  static async start(opts: { host: string; port: number; cert: string; key: string; headerToken: string }) {
    const server = createServer({ cert: readFileSync(opts.cert), key: readFileSync(opts.key) });
    const receiver = new WebhookReceiver(server, opts.headerToken);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(receiver.accept(req.headers, Buffer.concat(chunks).toString('utf8'))).end());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host, resolve);
    });
    return receiver;
  }

  private accept(headers: Record<string, string | string[] | undefined>, raw: string): number {
    const now = Date.now();
    const one = (name: string) => (typeof headers[name] === 'string' ? (headers[name] as string) : undefined);
    const bad = verifySignature(
      this.secrets,
      { id: one('webhook-id'), timestamp: one('webhook-timestamp'), signature: one('webhook-signature'), raw },
      now,
    );
    if (bad) {
      this.badSignatures++;
      return 401;
    }
    if (one('authorization') !== `Bearer ${this.headerToken}`) {
      this.badHeaders++;
      return 401;
    }
    let items: NotificationItem[] = [];
    try {
      const parsed = JSON.parse(raw) as unknown;
      items = Array.isArray(parsed) ? (parsed as NotificationItem[]) : [];
    } catch {
      return 400;
    }
    for (const item of items) {
      const arrival = {
        key: `${item.notification} ${item.objectid}`,
        webhookId: one('webhook-id') as string,
        item,
        at: now,
        requestId: one('x-request-id'),
      };
      this.arrivals.push(arrival);
      this.onArrival(arrival);
    }
    return 204;
  }

  /** The https URL of the receiver. */
  url(): string {
    const a = this.server.address() as AddressInfo;
    return `https://${a.address === '::' ? '127.0.0.1' : a.address}:${a.port}/notifications`;
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
