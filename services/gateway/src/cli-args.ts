import { parseArgs } from 'node:util';

/** A command line the CLI cannot run: answered with the usage text and exit code 64. */
export class UsageError extends Error {}

/** One parsed CLI command line. */
export interface CliCommand {
  /** `<group> <command>`, e.g. `clients create`; `help` for help. */
  command: string;
  /** The positional arguments after the command. */
  args: string[];
  /** `--platform-admin` (only `clients create` takes it). */
  platformAdmin: boolean;
}

/**
 * Parses the CLI's arguments with node:util parseArgs (strict): options are recognised wherever they stand and
 * never taken for a positional (`clients create acme --platform-admin stats` is missing its scopes, not a client
 * named `--platform-admin`); an unknown option is a usage error; `--` ends options, so a name may start with `-`.
 */
export function parseCliArgs(argv: string[]): CliCommand {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [group, command, ...args] = positionals;
  if (values.help || !group || group === 'help') return { command: 'help', args: [], platformAdmin: false };
  const name = `${group} ${command ?? ''}`.trim();
  const platformAdmin = values['platform-admin'] === true;
  if (platformAdmin && name !== 'clients create') {
    throw new UsageError('--platform-admin applies to clients create only');
  }
  return { command: name, args, platformAdmin };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: { 'platform-admin': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
}
