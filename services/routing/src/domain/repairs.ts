import type { AgentRecord, InteractionRecord } from './types';

/** What a routing pass must repair, found by comparing interactions' legs with agents' work lists. */
export interface RepairPlan {
  /** Agent → interactions to reconcile it with (out of step for longer than the grace periods). */
  sync: Map<string, Set<string>>;
  /** Ended interactions whose agents are in step: ready to leave the live collection. */
  archive: string[];
  /** Something is out of step but still within its grace period: come back soon. */
  waiting: boolean;
}

/**
 * Compares every live interaction's legs with its agents' work lists. A leg is in step when its agent
 * holds a work item that announced every milestone (or, once the leg is done, holds none). A work item
 * no leg knows is a reservation whose offer never reached the interaction. Out of step for longer than
 * the grace period (a crash between the interaction write and the agent write) → reconcile that agent.
 */
export function planRepairs(
  interactions: (Pick<InteractionRecord, 'interactionId' | 'state' | 'legs'> & { updatedAt: number })[],
  agents: Pick<AgentRecord, 'agentId' | 'work'>[],
  skip: ReadonlySet<string>,
  opts: { now: number; syncGraceMs: number; reserveGraceMs: number },
): RepairPlan {
  const byAgent = new Map(agents.map((a) => [a.agentId, a]));
  const sync = new Map<string, Set<string>>();
  const archive: string[] = [];
  let waiting = false;
  const needs = (agentId: string, interactionId: string) =>
    sync.set(agentId, (sync.get(agentId) ?? new Set()).add(interactionId));
  const known = new Set<string>();
  for (const rec of interactions) {
    if (skip.has(rec.interactionId)) continue;
    let inStep = true;
    for (const leg of rec.legs) {
      known.add(leg.channelId);
      const agent = byAgent.get(leg.agentId);
      if (!agent) continue;
      const item = agent.work.find((w) => w.channelId === leg.channelId);
      if (leg.done ? !item : item !== undefined && item.cursor === leg.timeline.length) continue;
      inStep = false;
      if (rec.updatedAt <= opts.now - opts.syncGraceMs) needs(leg.agentId, rec.interactionId);
      else waiting = true;
    }
    if (rec.state === 'ended') {
      if (inStep) archive.push(rec.interactionId);
      else waiting = true;
    }
  }
  for (const agent of agents) {
    for (const item of agent.work) {
      if (known.has(item.channelId) || skip.has(item.interactionId)) continue;
      if (item.reservedAt <= opts.now - opts.reserveGraceMs) needs(agent.agentId, item.interactionId);
      else waiting = true;
    }
  }
  return { sync, archive, waiting };
}
