import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { presenceState } from '../src/schemas/admin';
import { interactionType } from '../src/schemas/interactions';

const generatedTypesPath = resolve(__dirname, '../src/types.generated.ts');
const codegenPath = resolve(__dirname, '../src/codegen/types.codegen.ts');
const committed = readFileSync(generatedTypesPath, 'utf8');

// The TypeScript types are generated from the schemas (src/codegen/types.codegen.ts). The generator runs as
// its own process: json-schema-to-typescript loads ESM dependencies, which jest's CommonJS runtime cannot.
describe('types.generated.ts', () => {
  it('is what the generator makes from the schemas today (regenerate: pnpm --filter @cc/contracts generate:types)', () => {
    const fresh = execFileSync(process.execPath, ['--import', 'tsx', codegenPath, '--print'], {
      cwd: resolve(__dirname, '..'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(fresh).toBe(committed);
  }, 60_000);

  it.each([
    ['InteractionType', interactionType.enum],
    ['PresenceState', presenceState.enum],
  ])('%s is the union of its schema enum', (name, values) => {
    expect(committed).toContain(`export type ${name} = (${(values ?? []).map((v) => JSON.stringify(v)).join(' | ')})`);
  });
});
