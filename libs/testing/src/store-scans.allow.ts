/**
 * Queries allowed to scan, each with why: an entry matches a query whose "shape @ source file" contains
 * `match`. Everything else the code sends to the store must be served from an index
 * (store-scans.guard.ts). Keep this list short: every entry is a debt with an owner.
 */
export const allowedScans: { match: string; why: string }[] = [
  {
    match: '{"outbox.createdAt":{"$lte":"?"}} @ libs/bus/src/outbox.ts',
    why: 'outbox relay start-up sweeps (range on an array field): twice per start, for entries a version before outboxPending staged. The periodic sweeps read flagged documents (an indexed equality).',
  },
  {
    match: 'routing_accounts.find {"wakeAt":{"$lte":"?"}}',
    why: 'routing engine tick looking for due accounts (range). Issue 12 item 3: the engine wakes on work and on its own timers.',
  },
  {
    match: 'deliveries.find {"state":{"$in":["?"]}} @ services/notifier/src/store/delivery.repository.ts',
    why: 'notifier sweep of finished deliveries left by a crash ($in): off the hot path, issue 12 item 3 makes it a >= 30 s sweep.',
  },
  {
    match: 'routing_accounts.find {"wakeAt":{"$lt":"?"}} @ services/routing/src/store/account-lease.repository.ts',
    why: "routing engine's >= 30 s safety sweep for stored wakes: one document per account (grows with accounts, not history); the hot path wakes on the write and on timers.",
  },
  {
    match: 'routing_accounts.updateMany {"owner":"?"} @ services/routing/src/store/account-lease.repository.ts',
    why: "routing engine's graceful shutdown giving up this instance's leases: once per process, one document per account (grows with accounts, not history).",
  },
  {
    match: '@ libs/store/src/expiry.ts',
    why: 'bookkeeping expiry: an hourly bounded range read (FerretDB pushes no ranges; MongoDB serves it from the index), then deletes by _id.',
  },
  {
    match: 'deliveries.find {"finishedAt":{"$lt":"?"}} @ services/notifier/src/store/delivery.repository.ts',
    why: "the notifier's expiry of finished deliveries: a bounded range read in its periodic sweep (FerretDB pushes no ranges; MongoDB serves it from the finishedAt index), then deletes by _id.",
  },
  {
    match: 'interactions.find {"createdAt":{"$lt":"?"}} @ services/notifier/src/store/interaction.repository.ts',
    why: "the notifier's expiry of interaction chains: a bounded range read in its periodic sweep (as above), then deletes by _id.",
  },
  {
    match: 'providers.find {} @ services/notifier/src/store/provider.repository.ts',
    why: "the notifier's provider read model, loaded once at start and then kept in memory from cc.provider.v1.",
  },
  {
    match: 'stat_accounts.find {} @ services/statistics/src/store/statistics.repository.ts',
    why: "statistics' retention job listing accounts (one document per account) once per run, off the hot path.",
  },
];
