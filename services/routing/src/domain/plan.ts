import { routingError } from './errors';
import { nameKey } from './names';
import type { Applet, LinkedDataItem, Plan, SkillRequirement } from './types';

/** One applet run, as the `interaction.applet-executed` event reports it. */
export interface AppletRun {
  applet: { name: string; type: string };
  startedAt: number;
  durationMs: number;
  dataSource: { name: string; value: string | null } | null;
  queue: {
    virtualQueues: string[];
    presentedSkills: string[];
    result: 'Delivered' | 'TimedOut' | 'Released' | null;
  } | null;
  /** Announcement, Menu: what a voice platform would play (recorded, no telephony here). */
  detail?: Record<string, unknown>;
}

/** Where a plan run stopped: waiting in a Queue applet, or the plan ended. */
export type PlanStop =
  | { kind: 'queue'; appletIndex: number; name: string; virtualQueue: string; timeoutSeconds: number | null }
  | { kind: 'end'; reason: 'PlanEnded' | 'PlanLoop' | 'QueueTimeout' };

/** The outcome of running applets: what ran, the state they left, where it stopped. */
export interface PlanRun {
  runs: AppletRun[];
  skills: SkillRequirement[];
  dataSources: { name: string; value: string | null }[];
  recording: boolean;
  stop: PlanStop;
}

/** Applet steps one run may take before it is stopped as a loop (goto cycles without a Queue). */
export const maxAppletSteps = 100;

/** The index of the applet named `name` (case-insensitive), or -1. */
export function appletIndex(plan: Plan, name: string): number {
  return plan.applets.findIndex((a) => nameKey(a.name) === nameKey(name));
}

/** Adds skills not yet present (case-insensitive); an existing requirement keeps its expiry. */
export function mergeSkills(current: SkillRequirement[], added: SkillRequirement[]): SkillRequirement[] {
  const out = [...current];
  for (const s of added) if (!out.some((c) => nameKey(c.name) === nameKey(s.name))) out.push(s);
  return out;
}

function propertyValue(linkeddata: LinkedDataItem[], key: string): string | null {
  const props = linkeddata.filter(
    (l): l is Extract<LinkedDataItem, { type: 'interactionproperty' }> => l.type === 'interactionproperty',
  );
  const exact = props.find((p) => p.key === key) ?? props.find((p) => nameKey(p.key) === nameKey(key));
  return exact ? exact.value : null;
}

/**
 * Runs the plan's applets from `start` until a Queue applet (the interaction waits there) or the end.
 * SetDataSource takes its value from the interactionproperty item named `fromProperty`; SkillTagger adds
 * skills; CallRecording marks the interaction recorded; Announcement and Menu are voice applets, recorded
 * as events only. A Menu follows the option whose digit is the value of the interactionproperty named
 * after the Menu applet, and otherwise continues with the next applet.
 */
export function runPlan(
  plan: Plan,
  start: number,
  state: {
    linkeddata: LinkedDataItem[];
    skills: SkillRequirement[];
    dataSources: { name: string; value: string | null }[];
    recording: boolean;
  },
  now: number,
): PlanRun {
  const runs: AppletRun[] = [];
  let skills = [...state.skills];
  const dataSources = [...state.dataSources];
  let recording = state.recording;
  let index = start;
  for (let steps = 0; steps < maxAppletSteps; steps++) {
    const applet: Applet | undefined = plan.applets[index];
    if (!applet) return { runs, skills, dataSources, recording, stop: { kind: 'end', reason: 'PlanEnded' } };
    const base = {
      applet: { name: applet.name, type: applet.type },
      startedAt: now,
      durationMs: 0,
      dataSource: null,
      queue: null,
    };
    switch (applet.type) {
      case 'SetDataSource': {
        const value = propertyValue(state.linkeddata, applet.fromProperty);
        const existing = dataSources.findIndex((d) => d.name === applet.dataSource);
        if (existing >= 0) dataSources.splice(existing, 1);
        dataSources.push({ name: applet.dataSource, value });
        runs.push({ ...base, dataSource: { name: applet.dataSource, value } });
        index++;
        break;
      }
      case 'SkillTagger':
        skills = mergeSkills(
          skills,
          applet.skills.map((s) => ({ name: s.name, expiryafter: s.expiryafter ?? null })),
        );
        runs.push(base);
        index++;
        break;
      case 'CallRecording':
        recording = applet.enabled !== false;
        runs.push(base);
        index++;
        break;
      case 'Announcement':
        runs.push({ ...base, detail: { message: applet.message } });
        index++;
        break;
      case 'Menu': {
        const digit = propertyValue(state.linkeddata, applet.name);
        const option = applet.options.find((o) => o.digit === digit);
        runs.push({ ...base, detail: { prompt: applet.prompt, digit } });
        const target = option ? appletIndex(plan, option.goto) : -1;
        index = target >= 0 ? target : index + 1;
        break;
      }
      case 'Queue':
        return {
          runs,
          skills,
          dataSources,
          recording,
          stop: {
            kind: 'queue',
            appletIndex: index,
            name: applet.name,
            virtualQueue: applet.virtualQueue ?? applet.name,
            timeoutSeconds: applet.timeoutSeconds ?? null,
          },
        };
    }
  }
  return { runs, skills, dataSources, recording, stop: { kind: 'end', reason: 'PlanLoop' } };
}

/** Where a Queue applet's timeout continues: the next applet, a named one, or release. */
export function afterQueueTimeout(plan: Plan, queueIndex: number): number | 'release' {
  const applet = plan.applets[queueIndex];
  const onTimeout = applet?.type === 'Queue' ? applet.onTimeout : undefined;
  if (!onTimeout || onTimeout.action === 'next') return queueIndex + 1;
  if (onTimeout.action === 'release') return 'release';
  const target = appletIndex(plan, onTimeout.target ?? '');
  return target >= 0 ? target : queueIndex + 1;
}

/**
 * Checks a plan's internal references before it is stored: applet names unique (case-insensitive),
 * goto targets (Menu options, Queue onTimeout) name applets of the plan, SkillTagger skills are
 * configured. Throws ROUTING.INVALID_PLAN / ROUTING.UNKNOWN_SKILL (422) with one pointer per problem.
 */
export function assertPlanConsistent(plan: Plan, configuredSkills: Set<string>): void {
  const errors: { pointer: string; message: string }[] = [];
  const seen = new Map<string, number>();
  plan.applets.forEach((a, i) => {
    const key = nameKey(a.name);
    if (seen.has(key))
      errors.push({
        pointer: `/applets/${i}/name`,
        message: `name ${a.name} is already used by applet ${seen.get(key)}`,
      });
    else seen.set(key, i);
  });
  const exists = (name: string) => seen.has(nameKey(name));
  plan.applets.forEach((a, i) => {
    if (a.type === 'Menu') {
      a.options.forEach((o, j) => {
        if (!exists(o.goto))
          errors.push({
            pointer: `/applets/${i}/options/${j}/goto`,
            message: `goto ${o.goto} names no applet of the plan`,
          });
      });
    }
    if (a.type === 'Queue' && a.onTimeout?.action === 'goto' && a.onTimeout.target && !exists(a.onTimeout.target)) {
      errors.push({
        pointer: `/applets/${i}/onTimeout/target`,
        message: `target ${a.onTimeout.target} names no applet of the plan`,
      });
    }
  });
  if (errors.length)
    throw routingError('ROUTING.INVALID_PLAN', `The plan ${plan.name} has ${errors.length} inconsistency(ies)`, errors);
  const unknown: { pointer: string; message: string }[] = [];
  plan.applets.forEach((a, i) => {
    if (a.type !== 'SkillTagger') return;
    a.skills.forEach((s, j) => {
      if (!configuredSkills.has(nameKey(s.name)))
        unknown.push({ pointer: `/applets/${i}/skills/${j}/name`, message: `skill ${s.name} is not configured` });
    });
  });
  if (unknown.length)
    throw routingError('ROUTING.UNKNOWN_SKILL', `${unknown.length} skill(s) of the plan are not configured`, unknown);
}
