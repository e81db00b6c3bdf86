import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tlsCertFile, tlsKeyFile } from './suite';

/** One notification body item as providers parse it (libs/contracts `providerNotification`). */
export interface NotificationItem {
  notification: 'AssignToAgent' | 'Release';
  objectid: string;
  notificationid: string;
  externalId: string | null;
  params: Record<string, unknown> & {
    Agent: string;
    AgentId: string;
    Provider?: string;
    Route?: string | null;
    InteractionType: string;
    RequestId?: string | null;
    ReleasedBy?: string;
  };
}

/** One POST the endpoint received. */
export interface ReceivedPost {
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  items: NotificationItem[];
  webhookId: string;
}

/**
 * A provider's notification endpoint: a real HTTPS server on 127.0.0.1 with the e2e certificate (which
 * the notifier trusts through NOTIFIER_EXTRA_CA_FILE). It records every POST and answers 200, or what
 * `respond` says.
 */
export class ProviderEndpoint {
  readonly received: ReceivedPost[] = [];
  /** Chooses the status of the next answer (default 200). */
  respond: (post: ReceivedPost) => number = () => 200;

  private constructor(private readonly server: Server) {}

  /** Starts an endpoint on a free port. */
  static async start(): Promise<ProviderEndpoint> {
    const server = createServer({ cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) });
    const endpoint = new ProviderEndpoint(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let items: NotificationItem[] = [];
        try {
          items = JSON.parse(raw) as NotificationItem[];
        } catch {
          items = [];
        }
        const post: ReceivedPost = {
          at: Date.now(),
          path: req.url ?? '',
          headers: req.headers,
          raw,
          items: Array.isArray(items) ? items : [],
          webhookId: String(req.headers['webhook-id'] ?? ''),
        };
        endpoint.received.push(post);
        res.statusCode = endpoint.respond(post);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return endpoint;
  }

  /** The https URL to register. */
  url(path = '/cc/notifications'): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Every received notification item with the POST that carried it. */
  notifications(): { item: NotificationItem; post: ReceivedPost }[] {
    return this.received.flatMap((post) => post.items.map((item) => ({ item, post })));
  }

  /** The received items of one interaction and kind (duplicates included). */
  of(interactionId: string, kind?: NotificationItem['notification']): { item: NotificationItem; post: ReceivedPost }[] {
    return this.notifications().filter(
      (n) => n.item.objectid === interactionId && (kind === undefined || n.item.notification === kind),
    );
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Verifies a Standard Webhooks signature independently of the notifier's code: HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` with the base64 key after `whsec_`, compared with every
 * space-separated `v1,<base64>` of `webhook-signature`; the timestamp must be within 5 minutes of now.
 */
export function verifyStandardWebhook(secret: string, post: ReceivedPost, now = post.at): string | null {
  const id = post.headers['webhook-id'];
  const timestamp = post.headers['webhook-timestamp'];
  const signature = post.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
    return 'webhook-id, webhook-timestamp or webhook-signature header missing';
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > 300) {
    return `webhook-timestamp ${timestamp} is not within 5 minutes of now`;
  }
  if (!secret.startsWith('whsec_')) return 'the signing secret does not start with whsec_';
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${post.raw}`).digest();
  const matches = signature.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : `no v1 signature in "${signature}" matches the HMAC of the body`;
}
