import { Rng, seedOf } from './random';

/** The media the simulator places, with their routing interaction type. */
export type Media = 'Phone' | 'Chat' | 'Email';
const interactionTypeOf: Record<Media, 'live' | 'chat' | 'nonlive'> = { Phone: 'live', Chat: 'chat', Email: 'nonlive' };

/** The simulated account's configuration: skills, routes (all on one plan), agents. */
export interface Topology {
  skills: string[];
  plan: string;
  routes: string[];
  provider: string;
  agents: AgentPlan[];
}

/** One simulated agent: its username and skills. */
export interface AgentPlan {
  index: number;
  username: string;
  skills: { name: string; level: number }[];
}

/** One call of the run, drawn before the run starts (so the same seed places the same calls). */
export interface CallPlan {
  index: number;
  /** When it arrives, ms after the run's start. */
  atMs: number;
  media: Media;
  interactionType: 'live' | 'chat' | 'nonlive';
  route: string;
  skills: { name: string; expiryafter?: number }[];
  /** How long the customer waits before hanging up (Infinity: an email never abandons). */
  patienceMs: number;
  talkMs: number;
  /** 0: no hold. */
  holdMs: number;
  wrapMs: number;
  /** The first agent transfers it to the other route. */
  transfer: boolean;
  recorded: boolean;
}

/** Skills every simulated account has; agents hold English plus some of the others. */
export const skillNames = ['English', 'Spanish', 'Billing', 'Technical'] as const;

/** The account's configuration for `agents` agents under `prefix`. */
export function topology(prefix: string, agents: number, seed: string): Topology {
  const rng = new Rng(seedOf(`${seed}/agents`));
  const list: AgentPlan[] = [];
  for (let i = 0; i < agents; i++) {
    const skills = [{ name: 'English', level: 5 }];
    // Every agent covers at least one of Billing/Technical, so a call's mandatory skill always has agents.
    const billing = rng.chance(0.6);
    if (billing) skills.push({ name: 'Billing', level: 1 + Math.floor(rng.next() * 10) });
    if (!billing || rng.chance(0.5)) skills.push({ name: 'Technical', level: 1 + Math.floor(rng.next() * 10) });
    if (rng.chance(0.2)) skills.push({ name: 'Spanish', level: 5 });
    list.push({ index: i, username: `${prefix}.agent.${String(i + 1).padStart(3, '0')}`, skills });
  }
  return {
    skills: [...skillNames],
    plan: `${prefix} Plan`,
    routes: [`${prefix}-Sales`, `${prefix}-Support`],
    provider: `${prefix}-crm`,
    agents: list,
  };
}

/** The calls of a run: Poisson arrivals at `callsPerHour` for `durationMs`, with a mix of media, routes and skills. */
export function callPlan(opts: {
  seed: string;
  callsPerHour: number;
  durationMs: number;
  ahtMs: number;
  recordedShare: number;
  routes: string[];
}): CallPlan[] {
  const rng = new Rng(seedOf(`${opts.seed}/calls`));
  const meanGapMs = 3_600_000 / opts.callsPerHour;
  const calls: CallPlan[] = [];
  let at = rng.exponential(meanGapMs);
  while (at < opts.durationMs) {
    const media = rng.weighted<Media>([
      { value: 'Phone', weight: 70 },
      { value: 'Chat', weight: 20 },
      { value: 'Email', weight: 10 },
    ]);
    // Handle time split: most of it talking, a wrap of about 15 %, a hold on some phone calls.
    const aht = rng.exponential(opts.ahtMs * 0.8) + opts.ahtMs * 0.2;
    const hold = media === 'Phone' && rng.chance(0.3) ? aht * rng.between(0.05, 0.2) : 0;
    const wrapMs = aht * 0.15;
    const skills: CallPlan['skills'] = [
      // Required for 30 s, then optional: the queue falls back to any agent rather than waiting forever.
      { name: rng.chance(0.5) ? 'Billing' : 'Technical', expiryafter: 30 },
    ];
    if (rng.chance(0.1)) skills.push({ name: 'Spanish', expiryafter: 0 });
    calls.push({
      index: calls.length,
      atMs: Math.round(at),
      media,
      interactionType: interactionTypeOf[media],
      route: opts.routes[rng.chance(0.6) ? 0 : 1] as string,
      skills,
      patienceMs: media === 'Email' ? Number.POSITIVE_INFINITY : rng.exponential(media === 'Phone' ? 90_000 : 180_000),
      talkMs: Math.round(aht - hold - wrapMs),
      holdMs: Math.round(hold),
      wrapMs: Math.round(wrapMs),
      transfer: rng.chance(0.05),
      recorded: media === 'Phone' && rng.chance(opts.recordedShare),
    });
    at += rng.exponential(meanGapMs);
  }
  return calls;
}
