import { providerSettings, validateBody } from '@cc/contracts';
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

  // The registry used to check names and values by hand beside the schema; the contract's schema is now the only
  // rule, so it must refuse everything that code refused, naming each field.
  it('leaves unknown operation names and values other than 0 or 1 to the schema, which refuses each by name', () => {
    const result = validateBody(providerSettings, {
      provider: 'P',
      agentactionspermitted: { retrieve: 1, hold: 2, release: true, transferToRoute: '1' },
    });
    expect(result.ok).toBe(false);
    const pointers = result.ok ? [] : result.errors.map((e) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/agentactionspermitted/retrieve',
        '/agentactionspermitted/hold',
        '/agentactionspermitted/release',
        '/agentactionspermitted/transferToRoute',
      ]),
    );
    for (const c of cases) {
      expect(validateBody(providerSettings, { provider: 'P', agentactionspermitted: c.given })).toMatchObject({
        ok: true,
      });
    }
  });
});
