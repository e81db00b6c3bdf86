import { AppError } from '@cc/kit';
import {
  type AgentActionsPermitted,
  allPermitted,
  assertPermitted,
  effectivePermissions,
} from '../../src/domain/permissions';
import type { AgentOperation } from '../../src/domain/types';

const ops = ['release', 'hold', 'transferToAgent', 'transferToRoute'] as const;
const values = [undefined, 0, 1] as const;

/** Every combination of the four registrable operations, each unset, 0 or 1 (81 cases). */
const combinations: AgentActionsPermitted[] = [];
for (const release of values)
  for (const hold of values)
    for (const transferToAgent of values)
      for (const transferToRoute of values) {
        const p: AgentActionsPermitted = {};
        if (release !== undefined) p.release = release;
        if (hold !== undefined) p.hold = hold;
        if (transferToAgent !== undefined) p.transferToAgent = transferToAgent;
        if (transferToRoute !== undefined) p.transferToRoute = transferToRoute;
        combinations.push(p);
      }

describe('effective permissions', () => {
  it.each(combinations.map((c) => [JSON.stringify(c), c]))('%s', (_label, permitted) => {
    const p = permitted as AgentActionsPermitted;
    const e = effectivePermissions(p);
    // release: allowed unless explicitly 0.
    expect(e.release).toBe(p.release !== 0);
    // every other operation: only when 1; hold implies retrieve.
    expect(e.hold).toBe(p.hold === 1);
    expect(e.retrieve).toBe(p.hold === 1);
    expect(e.transferToAgent).toBe(p.transferToAgent === 1);
    expect(e.transferToRoute).toBe(p.transferToRoute === 1);
    for (const op of [...ops, 'retrieve'] as AgentOperation[]) {
      if (e[op]) expect(() => assertPermitted('AcmeCRM', e, op)).not.toThrow();
      else {
        try {
          assertPermitted('AcmeCRM', e, op);
          throw new Error('expected a refusal');
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('AGENT.ACTION_FORBIDDEN');
          expect((err as AppError).message).toBe(`The provider AcmeCRM does not permit ${op}`);
          expect((err as AppError).extra).toEqual({ operation: op, provider: 'AcmeCRM' });
        }
      }
    }
  });

  it('an empty map allows release only', () => {
    expect(effectivePermissions({})).toEqual({
      release: true,
      hold: false,
      retrieve: false,
      transferToAgent: false,
      transferToRoute: false,
    });
  });

  it('interactions without a provider allow everything', () => {
    for (const op of [...ops, 'retrieve'] as AgentOperation[])
      expect(() => assertPermitted(null, null, op)).not.toThrow();
    expect(Object.values(allPermitted).every(Boolean)).toBe(true);
  });

  it('a provider with unknown permissions falls back to the defaults (release only)', () => {
    expect(() => assertPermitted('X', null, 'release')).not.toThrow();
    expect(() => assertPermitted('X', null, 'hold')).toThrow('does not permit hold');
  });
});
