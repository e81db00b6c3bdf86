import { principalOf } from '@cc/kit';
import type { Request, RequestHandler, Response } from 'express';
import { notifierError } from '../domain/errors';
import type { DeliveryListQuery, DeliveryRepository } from '../store/delivery.repository';
import type { DeliveryDoc } from '../store/notifier.models';
import type { ProviderRepository } from '../store/provider.repository';

const maxAttemptsShown = 100;

/** What the handlers need of the pipeline. */
export interface LivePipeline {
  view(id: string): { nextAttemptAt: Date; sending: boolean } | undefined;
  adopt(docs: DeliveryDoc[]): void;
}

/**
 * The admin view of a delivery (contract `delivery`): no body, no internal fields. `live` is the
 * pipeline's in-memory view: its next attempt is current (e.g. postponed while a breaker is open).
 */
export function deliveryView(d: DeliveryDoc, live?: { nextAttemptAt: Date }) {
  const attempts = (d.attempts ?? []).slice(-maxAttemptsShown);
  const open = d.state === 'pending' || d.state === 'failed';
  const next = live?.nextAttemptAt ?? (d.nextAttemptAt ? new Date(d.nextAttemptAt) : null);
  return {
    deliveryId: d._id,
    provider: d.provider,
    interactionId: d.interactionId,
    notification: d.notification,
    state: d.state,
    nextAttemptAt: open ? (next?.toISOString() ?? null) : null,
    attempts: attempts.map((a) => ({
      at: new Date(a.at).toISOString(),
      status: a.status ?? null,
      latencyMs: Math.max(0, Math.round(a.latencyMs ?? 0)),
      error: a.error ?? null,
    })),
    createdAt: new Date(d.createdAt).toISOString(),
  };
}

function page(total: number, q: { page: number; limit: number }, count: number) {
  return { page: q.page, count, pageCount: Math.ceil(total / q.limit), totalCount: total };
}

/** The admin handlers of deliveries: list, get, replay one, replay a provider's failed and dead ones. */
export function deliveryHandlers(
  deliveries: DeliveryRepository,
  providers: Pick<ProviderRepository, 'get'>,
  pipeline: LivePipeline,
  lease: { owner: string; leaseMs: number },
) {
  const accountOf = (res: Response) => principalOf(res).accountId;
  const load = async (req: Request, res: Response): Promise<DeliveryDoc> => {
    const d = await deliveries.get(accountOf(res), String(req.params.id));
    if (!d) throw notifierError('NOTIFIER.DELIVERY_NOT_FOUND', `No delivery ${String(req.params.id)} in this account`);
    return d;
  };
  const view = (d: DeliveryDoc) => deliveryView(d, pipeline.view(d._id));
  const replay = async (d: DeliveryDoc): Promise<DeliveryDoc | null> => {
    const now = new Date();
    const doc = await deliveries.replayOne(d, now, lease.owner, new Date(now.getTime() + lease.leaseMs));
    if (doc) pipeline.adopt([doc]);
    return doc;
  };

  const list: RequestHandler = async (req, res) => {
    const q = req.query as unknown as DeliveryListQuery;
    const { items, total } = await deliveries.list(accountOf(res), q);
    res.json({ meta: page(total, q, items.length), items: items.map(view) });
  };

  const get: RequestHandler = async (req, res) => {
    res.json(view(await load(req, res)));
  };

  const replayOne: RequestHandler = async (req, res) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const d = await load(req, res);
      if (d.state === 'pending' || pipeline.view(d._id)?.sending) {
        throw notifierError('NOTIFIER.DELIVERY_PENDING', 'The delivery is pending: it is already being delivered');
      }
      if (await replay(d)) {
        res.status(202).json({ replayed: 1 });
        return;
      }
    }
    throw notifierError('REQUEST.CONFLICT', 'The delivery changed while it was being replayed; try again');
  };

  const replayProvider: RequestHandler = async (req, res) => {
    const body = req.body as { since: string; states: ('failed' | 'dead')[] };
    const name = String(req.params.name);
    // A provider the account never registered (or deleted) has nothing to replay to: 404, not "0 replayed".
    const provider = await providers.get(accountOf(res), name);
    if (!provider || provider.deleted) {
      throw notifierError('NOTIFIER.PROVIDER_NOT_FOUND', `No provider ${name} in this account`);
    }
    const found = await deliveries.findForReplay(accountOf(res), name, new Date(body.since), body.states);
    let replayed = 0;
    for (const d of found) {
      if (pipeline.view(d._id)?.sending) continue;
      if (await replay(d)) replayed++;
    }
    res.status(202).json({ replayed });
  };

  return { list, get, replayOne, replayProvider };
}
