import { parseCliArgs, UsageError } from '../../src/cli-args';

describe('gateway CLI arguments', () => {
  it('reads --platform-admin wherever it stands, never as a positional', () => {
    expect(parseCliArgs(['clients', 'create', 'acme', 'ops', 'admin', '--platform-admin'])).toEqual({
      command: 'clients create',
      args: ['acme', 'ops', 'admin'],
      platformAdmin: true,
    });
    expect(parseCliArgs(['clients', 'create', '--platform-admin', 'acme', 'ops', 'admin'])).toEqual({
      command: 'clients create',
      args: ['acme', 'ops', 'admin'],
      platformAdmin: true,
    });
  });

  it('does not consume --platform-admin as the client name (the scopes are then missing)', () => {
    // Before node:util parseArgs, this created a platform-admin client named "--platform-admin" with scope stats.
    const parsed = parseCliArgs(['clients', 'create', 'acme', '--platform-admin', 'stats']);
    expect(parsed.args).toEqual(['acme', 'stats']);
    expect(parsed.args).not.toContain('--platform-admin');
    expect(parsed.platformAdmin).toBe(true);
  });

  it('without the flag a client is no platform admin', () => {
    expect(parseCliArgs(['clients', 'create', 'acme', 'ops', 'stats']).platformAdmin).toBe(false);
  });

  it('refuses unknown options and --platform-admin on other commands', () => {
    expect(() => parseCliArgs(['clients', 'create', 'acme', 'ops', 'stats', '--platform-admn'])).toThrow(UsageError);
    expect(() => parseCliArgs(['accounts', 'create', 'acme', 'Acme', '--platform-admin'])).toThrow(
      /clients create only/,
    );
  });

  it('takes a name starting with - after --', () => {
    expect(parseCliArgs(['accounts', 'create', '--', 'acme', '-odd-name']).args).toEqual(['acme', '-odd-name']);
  });

  it('answers help for no arguments, help and --help', () => {
    for (const argv of [[], ['help'], ['--help'], ['-h'], ['clients', '--help']]) {
      expect(parseCliArgs(argv).command).toBe('help');
    }
  });
});
