import { AppError } from '@cc/kit';
import { allPermitted, assertPermitted, defaultPermissions } from '../../src/domain/permissions';
import type { AgentOperation, EffectivePermissions } from '../../src/domain/types';

const ops = ['release', 'hold', 'transferToAgent', 'transferToRoute'] as const;

/** Every combination of permissions a provider event can carry (retrieve equals hold): 16 cases. */
const combinations: EffectivePermissions[] = [];
for (const release of [false, true])
  for (const hold of [false, true])
    for (const transferToAgent of [false, true])
      for (const transferToRoute of [false, true])
        combinations.push({ release, hold, retrieve: hold, transferToAgent, transferToRoute });

describe('provider permissions at the agent desktop', () => {
  it.each(combinations.map((c) => [JSON.stringify(c), c]))('%s', (_label, permissions) => {
    const e = permissions as EffectivePermissions;
    for (const op of [...ops, 'retrieve'] as AgentOperation[]) {
      if (e[op]) expect(() => assertPermitted('AcmeCRM', e, op)).not.toThrow();
      else {
        try {
          assertPermitted('AcmeCRM', e, op);
          throw new Error('expected a refusal');
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect((err as AppError).code).toBe('AGENT.ACTION_FORBIDDEN');
          expect((err as AppError).status).toBe(403);
          expect((err as AppError).message).toBe(`The provider AcmeCRM does not permit ${op}`);
          expect((err as AppError).extra).toEqual({ operation: op, provider: 'AcmeCRM' });
        }
      }
    }
  });

  it('the defaults for unknown permissions allow release only', () => {
    expect(defaultPermissions).toEqual({
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
