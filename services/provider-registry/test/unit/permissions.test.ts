import { AppError } from '@cc/kit';
import { effectivePermissions } from '../../src/domain/permissions';
import { permissionCases } from '../support/permission-combinations';

const cases = permissionCases();

describe('effective permissions', () => {
  it('covers every combination of the four operations as 0, 1 or omitted', () => {
    expect(cases).toHaveLength(81);
    expect(new Set(cases.map((c) => c.label)).size).toBe(81);
  });

  it.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    expect(effectivePermissions(c.given)).toEqual(c.expected);
  });

  it('matches hand-written rows of the spec', () => {
    expect(effectivePermissions({})).toEqual({
      release: true,
      hold: false,
      retrieve: false,
      transferToAgent: false,
      transferToRoute: false,
    });
    expect(effectivePermissions({ release: 0, hold: 1 })).toEqual({
      release: false,
      hold: true,
      retrieve: true,
      transferToAgent: false,
      transferToRoute: false,
    });
    expect(effectivePermissions({ release: 1, hold: 1, transferToAgent: 0, transferToRoute: 1 })).toEqual({
      release: true,
      hold: true,
      retrieve: true,
      transferToAgent: false,
      transferToRoute: true,
    });
  });

  it('refuses unknown operation names and values other than 0 or 1, naming each', () => {
    let caught: unknown;
    try {
      effectivePermissions({ retrieve: 1, hold: 2, release: true });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('REQUEST.VALIDATION');
    expect((caught as AppError).errors).toEqual([
      {
        pointer: '/agentactionspermitted/retrieve',
        message: 'retrieve is not an operation (allowed: release, hold, transferToAgent, transferToRoute)',
      },
      { pointer: '/agentactionspermitted/hold', message: 'hold must be one of: 0, 1' },
      { pointer: '/agentactionspermitted/release', message: 'release must be one of: 0, 1' },
    ]);
  });
});
