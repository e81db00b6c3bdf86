/** Everything a run is told, parsed once from flags and the environment. */
export interface Options {
  gatewayUrl: string;
  clientId: string;
  clientSecret: string;
  agents: number;
  callsPerHour: number;
  /** Average handle time (talk + hold + wrap), ms. */
  ahtMs: number;
  durationMs: number;
  seed: string;
  /** Share of live calls that upload a synthesized recording for analysis. */
  recordedShare: number;
  /** Soak mode: samples the suite's processes every `sampleEveryMs` and judges growth and errors. */
  soak: boolean;
  sampleEveryMs: number;
  /** How long after the last arrival in-flight calls may take to finish before they are closed. */
  drainMs: number;
  /** Names of the simulated configuration (routes, plan, agents, provider) start with this. */
  prefix: string;
  receiverHost: string;
  receiverPort: number;
  /** The URL registered as the provider endpoint when the receiver is reached through something else. */
  publicUrl: string;
  tlsCert: string;
  tlsKey: string;
  /** First of the seven local service ports, for /metrics sampling (default: the gateway's port). */
  metricsBase: number;
  reportDir: string;
  /** Exit non-zero when a cross-check (or the soak's limits) fails. */
  strict: boolean;
  /** The soak's bound on each service's RSS growth (last window over first, minus 1). */
  maxRssGrowth: number;
}

/** A problem with the command line, reported with the flag's name. */
export class UsageError extends Error {}

/** Parses `90`, `90s`, `5m`, `1h`, `250ms` into milliseconds (a bare number is seconds). */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag}: "${text}" is not a duration (e.g. 90s, 5m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(m[1]) * unit);
}

function positive(text: string, flag: string, integer = true): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag}: "${text}" must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

/** The usage text of `./cc simulate --help`. */
export const usage = `./cc simulate [flags]   a contact center driven through the suite's public APIs
  --gateway URL            gateway (env CC_SIM_GATEWAY; default http://127.0.0.1:$CC_PORT_BASE or :8080)
  --client-id ID           API client with every scope (env CC_SIM_CLIENT_ID, CC_DEMO_CLIENT_ID; default demo-client)
  --client-secret SECRET   (env CC_SIM_CLIENT_SECRET, CC_DEMO_CLIENT_SECRET; default demo-secret-change-me)
  --agents N               simulated agents (default 20)
  --calls-per-hour N       Poisson arrival rate (default 1200)
  --aht DURATION           average handle time: talk + hold + wrap (default 30s)
  --duration DURATION      how long calls arrive (default 5m)
  --seed TEXT              same seed, same run (default 1)
  --recorded SHARE         share of phone calls that upload a recording for analysis (default 0.05)
  --soak DURATION          soak: runs DURATION at a moderate rate, samples every service's RSS, CPU,
                           event lag and errors every 10 s, judges growth and errors at the end
  --drain DURATION         time for in-flight calls after the last arrival (default 120s)
  --prefix NAME            names of the simulated routes, agents, provider (default sim)
  --receiver-host HOST     webhook receiver address (default 127.0.0.1)
  --receiver-port PORT     (default 0: any free port)
  --public-url URL         register this URL instead of the receiver's own (a tunnel, a proxy)
  --tls-cert FILE --tls-key FILE   the receiver's certificate (default .data/dev-tls/, made by ./cc start)
  --metrics-base PORT      first of the 7 local service ports for sampling (default the gateway's port)
  --report-dir DIR         where the JSON report goes (default .data/simulate)
  --max-rss-growth SHARE   soak: the bound on each service's RSS growth, first vs last 5 minutes (default 0.10)
  --strict                 exit 1 when a cross-check or a soak limit fails`;

/** Parses argv (after `simulate`) and the environment into options; throws UsageError naming the flag. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv, root: string): Options {
  const flags = new Map<string, string>();
  const booleans = new Set(['--strict', '--help']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (booleans.has(arg)) flags.set(arg, 'true');
    else {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      flags.set(arg, value);
      i++;
    }
  }
  const known = new Set([...booleans, ...(usage.match(/--[a-z-]+/g) ?? [])]);
  for (const flag of flags.keys()) if (!known.has(flag)) throw new UsageError(`unknown flag ${flag} (see --help)`);
  if (flags.has('--help')) throw new UsageError(usage);
  const get = (flag: string) => flags.get(flag);
  const soakText = get('--soak');
  const soak = soakText !== undefined;
  const base = env.CC_PORT_BASE ? Number(env.CC_PORT_BASE) : 8080;
  const gatewayUrl = (get('--gateway') ?? env.CC_SIM_GATEWAY ?? `http://127.0.0.1:${base}`).replace(/\/+$/, '');
  let gatewayPort: number;
  try {
    const u = new URL(gatewayUrl);
    gatewayPort = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  } catch {
    throw new UsageError(`--gateway: "${gatewayUrl}" is not a URL`);
  }
  const recordedShare = Number(get('--recorded') ?? '0.05');
  if (!(recordedShare >= 0 && recordedShare <= 1)) throw new UsageError('--recorded: must be between 0 and 1');
  return {
    gatewayUrl,
    clientId: get('--client-id') ?? env.CC_SIM_CLIENT_ID ?? env.CC_DEMO_CLIENT_ID ?? 'demo-client',
    clientSecret:
      get('--client-secret') ?? env.CC_SIM_CLIENT_SECRET ?? env.CC_DEMO_CLIENT_SECRET ?? 'demo-secret-change-me',
    // A soak runs at a moderate rate unless told otherwise.
    agents: positive(get('--agents') ?? (soak ? '30' : '20'), '--agents'),
    callsPerHour: positive(get('--calls-per-hour') ?? (soak ? '1200' : '1200'), '--calls-per-hour', false),
    ahtMs: parseDuration(get('--aht') ?? '30s', '--aht'),
    durationMs: soak
      ? parseDuration(soakText as string, '--soak')
      : parseDuration(get('--duration') ?? '5m', '--duration'),
    seed: get('--seed') ?? '1',
    recordedShare,
    soak,
    sampleEveryMs: 10_000,
    drainMs: parseDuration(get('--drain') ?? '120s', '--drain'),
    prefix: (get('--prefix') ?? 'sim').replace(/[^A-Za-z0-9-]/g, '') || 'sim',
    receiverHost: get('--receiver-host') ?? '127.0.0.1',
    receiverPort: Number(get('--receiver-port') ?? '0'),
    publicUrl: get('--public-url') ?? '',
    tlsCert: get('--tls-cert') ?? `${root}/.data/dev-tls/cert.pem`,
    tlsKey: get('--tls-key') ?? `${root}/.data/dev-tls/key.pem`,
    metricsBase: Number(get('--metrics-base') ?? gatewayPort),
    reportDir: get('--report-dir') ?? `${root}/.data/simulate`,
    strict: flags.has('--strict'),
    maxRssGrowth: Number(get('--max-rss-growth') ?? '0.10'),
  };
}
