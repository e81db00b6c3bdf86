/**
 * Queries allowed to scan, each with why: an entry matches a query whose "shape @ source file" contains
 * `match`. Everything else the code sends to the store must be served from an index
 * (store-scans.guard.ts). Keep this list short: every entry is a debt with an owner.
 */
export const allowedScans: { match: string; why: string }[] = [
  {
    match: '{"outbox.createdAt":{"$lte":"?"}} @ libs/bus/src/outbox.ts',
    why: 'outbox relay safety poll (range on an array field). Issue 12 item 3: relays wake on the write; the poll becomes a >= 30 s sweep.',
  },
  {
    match: 'routing_accounts.find {"wakeAt":{"$lte":"?"}}',
    why: 'routing engine tick looking for due accounts (range). Issue 12 item 3: the engine wakes on work and on its own timers.',
  },
  {
    match: 'deliveries.find {"state":{"$in":["?"]}} @ services/notifier/src/store/delivery.repository.ts',
    why: 'notifier sweep of finished deliveries left by a crash ($in): off the hot path, issue 12 item 3 makes it a >= 30 s sweep.',
  },
];
