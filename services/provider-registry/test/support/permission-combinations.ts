/** Every combination of the four operations given as 0, 1 or omitted (3^4 = 81), with the expected permissions. */
export type Given = 0 | 1 | undefined;

const ops = ['release', 'hold', 'transferToAgent', 'transferToRoute'] as const;

/** The spec's rule, restated from the ProviderSettings table (not from the implementation). */
const defaultWhenOmitted: Record<(typeof ops)[number], boolean> = {
  release: true, // "release is allowed by default"
  hold: false, // "Unspecified operations other than release are not allowed"
  transferToAgent: false,
  transferToRoute: false,
};

/** One row: the `agentactionspermitted` to send and the effective permissions it must give. */
export interface PermissionCase {
  label: string;
  given: Record<string, 0 | 1>;
  expected: { release: boolean; hold: boolean; retrieve: boolean; transferToAgent: boolean; transferToRoute: boolean };
}

/** The 81 cases. */
export function permissionCases(): PermissionCase[] {
  const rows: Given[][] = [[]];
  for (let i = 0; i < ops.length; i++) {
    const next: Given[][] = [];
    for (const row of rows) for (const v of [0, 1, undefined] as Given[]) next.push([...row, v]);
    rows.splice(0, rows.length, ...next);
  }
  return rows.map((row) => {
    const given: Record<string, 0 | 1> = {};
    const allowed: Record<string, boolean> = {};
    ops.forEach((op, i) => {
      const v = row[i];
      if (v !== undefined) given[op] = v;
      // "0 = operation not allowed, 1 = allowed"; omitted → the default above.
      allowed[op] = v === undefined ? defaultWhenOmitted[op] : v === 1;
    });
    return {
      label: ops.map((op, i) => `${op}=${row[i] ?? '-'}`).join(' '),
      given,
      expected: {
        release: allowed.release as boolean,
        hold: allowed.hold as boolean,
        retrieve: allowed.hold as boolean, // "permitting hold also permits retrieve"
        transferToAgent: allowed.transferToAgent as boolean,
        transferToRoute: allowed.transferToRoute as boolean,
      },
    };
  });
}
