import type { NotificationKind } from './notification';

/** A delivery that is not finished (pending or failed), as the ordering rule sees it. */
export interface OpenDelivery {
  id: string;
  /** Account and interaction, e.g. `acme:0a1b…`. */
  interactionKey: string;
  /** The interaction event's `sequence`: the order the notifications must reach the provider in. */
  seq: number;
  notification: NotificationKind;
}

const kindRank: Record<NotificationKind, number> = { AssignToAgent: 0, Release: 1 };

/** Orders deliveries of one interaction: by event sequence, then AssignToAgent before Release, then id. */
export function compareDeliveries(a: OpenDelivery, b: OpenDelivery): number {
  return (
    a.seq - b.seq || kindRank[a.notification] - kindRank[b.notification] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * Ordering per interaction: a delivery may be sent only when no earlier delivery of the same
 * interaction is still open (pending or failed; delivered and dead ones no longer hold it back).
 * Returns, for each candidate that must wait, the open delivery it waits for (the earliest one).
 */
export function blockersOf(
  candidates: readonly OpenDelivery[],
  open: readonly OpenDelivery[],
): Map<string, OpenDelivery> {
  const earliest = new Map<string, OpenDelivery>();
  for (const d of [...open, ...candidates]) {
    const current = earliest.get(d.interactionKey);
    if (!current || compareDeliveries(d, current) < 0) earliest.set(d.interactionKey, d);
  }
  const blocked = new Map<string, OpenDelivery>();
  for (const c of candidates) {
    const first = earliest.get(c.interactionKey);
    if (first && first.id !== c.id && compareDeliveries(first, c) < 0) blocked.set(c.id, first);
  }
  return blocked;
}
