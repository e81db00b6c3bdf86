import type { Engine } from './engine';

type Snapshot = ReturnType<Engine['snapshot']>;

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);
const ms = (x: number | null) => (x === null ? '-' : `${Math.round(x)} ms`);
const clock = (t: number) => {
  const s = Math.floor(t / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};
const pairs = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '-';

/** The live view: a screenful of the run's numbers. */
export function renderView(
  s: Snapshot,
  extra: { title: string; durationMs: number; received: number; duplicates: number; soakLine?: string },
): string {
  const errors = Object.values(s.errors).reduce((a, b) => a + b, 0);
  return [
    `${extra.title}   ${s.phase}   ${clock(s.elapsedMs)} / ${clock(extra.durationMs)}`,
    '',
    `calls      offered ${s.offered} of ${s.planned} planned   waiting ${s.waiting}   in progress ${s.inProgress}`,
    `           answered ${s.answered}   handled ${s.handled}   abandoned ${s.abandoned}   closed at end ${s.closed}   transferred ${s.transferred}   failed ${s.failed}`,
    `service    level ${pct(s.serviceLevel)} answered within 20 s`,
    `agents     ${pairs(s.agents)}   (breaks ${s.breaks}, log-outs ${s.logouts})`,
    `webhooks   received ${extra.received}   redelivered ${extra.duplicates}   latency p50 ${ms(s.notificationLatencyMs.p50)}  p99 ${ms(s.notificationLatencyMs.p99)}`,
    `requests   ${s.requests}   errors ${errors}${errors ? `: ${pairs(s.errors)}` : ''}`,
    ...(Object.keys(s.races).length ? [`races      ${pairs(s.races)} (expected: a caller hung up while it rang)`] : []),
    ...(extra.soakLine ? [`soak       ${extra.soakLine}`] : []),
  ].join('\n');
}

/** One line for logs (stdout not a terminal): printed every 10 s. */
export function progressLine(s: Snapshot, received: number): string {
  const errors = Object.values(s.errors).reduce((a, b) => a + b, 0);
  return `[simulate] ${clock(s.elapsedMs)} ${s.phase} offered=${s.offered} waiting=${s.waiting} answered=${s.answered} abandoned=${s.abandoned} sl=${pct(s.serviceLevel)} agents={${pairs(s.agents)}} webhooks=${received} p99=${ms(s.notificationLatencyMs.p99)} errors=${errors}`;
}
