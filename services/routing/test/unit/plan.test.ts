import type { AppError } from '@cc/kit';
import { afterQueueTimeout, assertPlanConsistent, maxAppletSteps, mergeSkills, runPlan } from '../../src/domain/plan';
import type { Applet, LinkedDataItem, Plan } from '../../src/domain/types';

const plan = (applets: Applet[]): Plan => ({ name: 'P', reportingGroup: null, applets });
const empty = { linkeddata: [] as LinkedDataItem[], skills: [], dataSources: [], recording: false };

describe('running a plan', () => {
  it('SetDataSource takes its value from the interactionproperty item (exact key first, then any case)', () => {
    const linkeddata: LinkedDataItem[] = [
      { type: 'interactionproperty', key: 'priority', value: 'low' },
      { type: 'interactionproperty', key: 'Priority', value: 'high' },
      { type: 'interactionproperty', key: 'Region', value: 'EMEA' },
    ];
    const run = runPlan(
      plan([
        { type: 'SetDataSource', name: 'Prio', dataSource: 'Priority', fromProperty: 'Priority' },
        { type: 'SetDataSource', name: 'Reg', dataSource: 'Region', fromProperty: 'REGION' },
        { type: 'SetDataSource', name: 'Missing', dataSource: 'Tier', fromProperty: 'tier' },
        { type: 'Queue', name: 'Q' },
      ]),
      0,
      { ...empty, linkeddata },
      7,
    );
    expect(run.dataSources).toEqual([
      { name: 'Priority', value: 'high' },
      { name: 'Region', value: 'EMEA' },
      { name: 'Tier', value: null },
    ]);
    expect(run.runs.map((r) => r.dataSource)).toEqual(run.dataSources);
    expect(run.stop).toEqual({ kind: 'queue', appletIndex: 3, name: 'Q', virtualQueue: 'Q', timeoutSeconds: null });
  });

  it('SkillTagger adds skills; an existing requirement (any case) keeps its expiry', () => {
    const run = runPlan(
      plan([
        {
          type: 'SkillTagger',
          name: 'Tag',
          skills: [{ name: 'english', expiryafter: 5 }, { name: 'Printers', expiryafter: 0 }, { name: 'Billing' }],
        },
        { type: 'Queue', name: 'Q', virtualQueue: 'Support', timeoutSeconds: 60 },
      ]),
      0,
      { ...empty, skills: [{ name: 'English', expiryafter: null }] },
      0,
    );
    expect(run.skills).toEqual([
      { name: 'English', expiryafter: null },
      { name: 'Printers', expiryafter: 0 },
      { name: 'Billing', expiryafter: null },
    ]);
    expect(run.stop).toMatchObject({ kind: 'queue', virtualQueue: 'Support', timeoutSeconds: 60 });
  });

  it('CallRecording, Announcement and Menu are recorded as applet runs (no telephony)', () => {
    const run = runPlan(
      plan([
        { type: 'CallRecording', name: 'Rec' },
        { type: 'Announcement', name: 'Hello', message: 'Welcome' },
        { type: 'Menu', name: 'Choose', prompt: 'Press 1', options: [{ digit: '1', goto: 'Q' }] },
        { type: 'Queue', name: 'Q' },
      ]),
      0,
      empty,
      42,
    );
    expect(run.recording).toBe(true);
    expect(run.runs.map((r) => [r.applet.type, r.startedAt, r.detail])).toEqual([
      ['CallRecording', 42, undefined],
      ['Announcement', 42, { message: 'Welcome' }],
      ['Menu', 42, { prompt: 'Press 1', digit: null }],
    ]);
  });

  it('CallRecording enabled false turns recording off', () => {
    expect(
      runPlan(plan([{ type: 'CallRecording', name: 'R', enabled: false }]), 0, { ...empty, recording: true }, 0)
        .recording,
    ).toBe(false);
  });

  it('a Menu follows the option chosen by the interactionproperty named after it, else the next applet', () => {
    const applets: Applet[] = [
      { type: 'Menu', name: 'Choose', prompt: 'p', options: [{ digit: '2', goto: 'Sales' }] },
      { type: 'Queue', name: 'Support' },
      { type: 'Queue', name: 'Sales' },
    ];
    const chosen = runPlan(
      plan(applets),
      0,
      { ...empty, linkeddata: [{ type: 'interactionproperty', key: 'choose', value: '2' }] },
      0,
    );
    expect(chosen.stop).toMatchObject({ kind: 'queue', name: 'Sales' });
    const unchosen = runPlan(
      plan(applets),
      0,
      { ...empty, linkeddata: [{ type: 'interactionproperty', key: 'Choose', value: '9' }] },
      0,
    );
    expect(unchosen.stop).toMatchObject({ kind: 'queue', name: 'Support' });
  });

  it('ends when the applets run out, and stops a goto loop without a Queue', () => {
    expect(runPlan(plan([{ type: 'Announcement', name: 'A', message: 'm' }]), 0, empty, 0).stop).toEqual({
      kind: 'end',
      reason: 'PlanEnded',
    });
    const loop = runPlan(
      plan([{ type: 'Menu', name: 'M', prompt: 'p', options: [{ digit: '1', goto: 'M' }] }]),
      0,
      { ...empty, linkeddata: [{ type: 'interactionproperty', key: 'M', value: '1' }] },
      0,
    );
    expect(loop.stop).toEqual({ kind: 'end', reason: 'PlanLoop' });
    expect(loop.runs).toHaveLength(maxAppletSteps);
  });

  it('can start from any applet (queue timeout continuation)', () => {
    const p = plan([
      { type: 'Queue', name: 'A' },
      { type: 'Announcement', name: 'B', message: 'm' },
      { type: 'Queue', name: 'C' },
    ]);
    expect(runPlan(p, 1, empty, 0).stop).toMatchObject({ kind: 'queue', name: 'C', appletIndex: 2 });
  });
});

describe('queue timeout continuation', () => {
  const p = plan([
    { type: 'Queue', name: 'Q1', timeoutSeconds: 5 },
    { type: 'Queue', name: 'Q2', timeoutSeconds: 5, onTimeout: { action: 'next' } },
    { type: 'Queue', name: 'Q3', timeoutSeconds: 5, onTimeout: { action: 'goto', target: 'q1' } },
    { type: 'Queue', name: 'Q4', timeoutSeconds: 5, onTimeout: { action: 'release' } },
  ]);
  it('defaults to next; goto resolves names case-insensitively; release releases', () => {
    expect(afterQueueTimeout(p, 0)).toBe(1);
    expect(afterQueueTimeout(p, 1)).toBe(2);
    expect(afterQueueTimeout(p, 2)).toBe(0);
    expect(afterQueueTimeout(p, 3)).toBe('release');
  });
});

describe('plan consistency', () => {
  const skills = new Set(['english']);
  const code = (fn: () => void) => {
    try {
      fn();
      return null;
    } catch (err) {
      return { code: (err as AppError).code, errors: (err as AppError).errors };
    }
  };

  it('accepts a consistent plan', () => {
    expect(
      code(() =>
        assertPlanConsistent(
          plan([
            { type: 'SkillTagger', name: 'T', skills: [{ name: 'ENGLISH' }] },
            { type: 'Queue', name: 'Q', onTimeout: { action: 'goto', target: 'sorry' } },
            { type: 'Announcement', name: 'Sorry', message: 'm' },
          ]),
          skills,
        ),
      ),
    ).toBeNull();
  });

  it('refuses duplicate applet names and dangling goto targets, with pointers', () => {
    expect(
      code(() =>
        assertPlanConsistent(
          plan([
            { type: 'Queue', name: 'Q', onTimeout: { action: 'goto', target: 'nowhere' } },
            { type: 'Menu', name: 'q', prompt: 'p', options: [{ digit: '1', goto: 'elsewhere' }] },
          ]),
          skills,
        ),
      ),
    ).toEqual({
      code: 'ROUTING.INVALID_PLAN',
      errors: [
        { pointer: '/applets/1/name', message: 'name q is already used by applet 0' },
        { pointer: '/applets/0/onTimeout/target', message: 'target nowhere names no applet of the plan' },
        { pointer: '/applets/1/options/0/goto', message: 'goto elsewhere names no applet of the plan' },
      ],
    });
  });

  it('refuses SkillTagger skills that are not configured', () => {
    expect(
      code(() =>
        assertPlanConsistent(plan([{ type: 'SkillTagger', name: 'T', skills: [{ name: 'Klingon' }] }]), skills),
      ),
    ).toEqual({
      code: 'ROUTING.UNKNOWN_SKILL',
      errors: [{ pointer: '/applets/0/skills/0/name', message: 'skill Klingon is not configured' }],
    });
  });
});

describe('mergeSkills', () => {
  it('keeps order and the first requirement of a name', () => {
    expect(
      mergeSkills(
        [{ name: 'A', expiryafter: 1 }],
        [
          { name: 'a', expiryafter: 2 },
          { name: 'B', expiryafter: null },
        ],
      ),
    ).toEqual([
      { name: 'A', expiryafter: 1 },
      { name: 'B', expiryafter: null },
    ]);
  });
});
