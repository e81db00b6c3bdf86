import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ApiError, type Credentials, type SuiteApi } from './api';
import type { Topology } from './plan';

/** What the setup made or found: the account, agent ids by username, the provider's signing secrets. */
export interface Installed {
  accountId: string;
  agentIds: Map<string, string>;
  signingSecrets: string[];
  summariesEnabled: boolean;
  /** Interactions a previous run left with the agents, finished during setup. */
  cleanedUp: number;
}

/**
 * Local state kept between runs (mode 0600): the suite shows signing secrets and client secrets only once, so the
 * simulator keeps those of its own account here, keyed by gateway URL.
 */
interface SavedState {
  secrets: Record<string, string>;
  accounts?: Record<string, { accountId: string; admin: Credentials; app: Credentials }>;
}

function readState(file: string): SavedState {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SavedState;
  } catch {
    return { secrets: {} };
  }
}

function writeState(file: string, state: SavedState): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  if (existsSync(file)) chmodSync(file, 0o600);
}

/**
 * With a platform operator's client (the demo client is one), the run gets an account of its own, made once and
 * reused: its feature flags, agents and routes are the simulator's alone. With an ordinary account's client the
 * run uses that account. Switches `api` to the account's clients and answers its id.
 */
export async function ownAccount(
  api: SuiteApi,
  prefix: string,
  stateFile: string,
  operator: Credentials,
): Promise<string | null> {
  const state = readState(stateFile);
  const key = `${api.baseUrl} ${prefix}`;
  const saved = state.accounts?.[key];
  if (saved) {
    api.use(saved.admin, saved.app);
    try {
      await api.token('admin');
      return saved.accountId;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err; // the suite lost it (a reset store): make a new one
      api.reset(operator);
    }
  }
  const accountId = `${prefix}-${randomBytes(3).toString('hex')}`;
  let made: { adminClient: Credentials };
  try {
    made = (
      await api.call<{ adminClient: Credentials }>('admin', {
        method: 'POST',
        path: '/admin/accounts',
        json: { accountId, name: `Simulator (${prefix})` },
        expect: [201],
      })
    ).body;
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return null; // not an operator: use the client's account
    throw err;
  }
  api.use(made.adminClient, made.adminClient);
  const app = await api.call<Credentials>('admin', {
    method: 'POST',
    path: '/admin/clients',
    json: {
      name: 'Simulator',
      scopes: ['interactions:write', 'agent', 'stats', 'interaction-content:read', 'interaction-content:write'],
    },
    expect: [201],
  });
  const appCreds = { clientId: app.body.clientId, clientSecret: app.body.clientSecret };
  api.use(made.adminClient, appCreds);
  state.accounts = { ...state.accounts, [key]: { accountId, admin: made.adminClient, app: appCreds } };
  writeState(stateFile, state);
  return accountId;
}

/**
 * Creates or updates, idempotently, the account's skills, plan, routes, agents and provider (its endpoint the
 * receiver, its header `Authorization: Bearer <headerToken>`), and finishes interactions a previous run left.
 */
export async function install(
  api: SuiteApi,
  topo: Topology,
  endpoint: string,
  headerToken: string,
  stateFile: string,
): Promise<Installed> {
  const account = await api.call<{ accountId: string }>('admin', { method: 'GET', path: '/admin/account' });
  const accountId = account.body.accountId;
  let summariesEnabled = true;
  try {
    await api.call('admin', { method: 'PATCH', path: '/admin/account/feature-flags', json: { agentSummaries: true } });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    summariesEnabled = false;
  }
  for (const skill of topo.skills) {
    await api.call('admin', {
      method: 'PUT',
      path: `/admin/skills/${encodeURIComponent(skill)}`,
      json: { name: skill, description: `${skill} (simulator)` },
    });
  }
  await api.call('admin', {
    method: 'PUT',
    path: `/admin/interaction-plans/${encodeURIComponent(topo.plan)}`,
    json: {
      name: topo.plan,
      reportingGroup: 'Simulator',
      applets: [
        { type: 'SkillTagger', name: 'Tag English', skills: [{ name: 'English' }] },
        { type: 'Queue', name: 'Main queue', virtualQueue: 'Main' },
      ],
    },
  });
  for (const route of topo.routes) {
    await api.call('admin', {
      method: 'PUT',
      path: `/admin/routes/${encodeURIComponent(route)}`,
      json: { name: route, interactionPlan: topo.plan },
    });
  }
  const existing = await api.all<{ agentId: string; username: string }>('admin', '/admin/agents');
  const byName = new Map(existing.map((a) => [a.username.toLowerCase(), a.agentId]));
  const agentIds = new Map<string, string>();
  // A phone call at a time; chats and emails beside it, as a real desk works.
  const capacity = { calls: 1, semiLive: 2, nonLive: 2 };
  for (const agent of topo.agents) {
    const body = {
      username: agent.username,
      displayName: `Simulated ${agent.index + 1}`,
      skills: agent.skills,
      capacity,
    };
    const id = byName.get(agent.username.toLowerCase());
    if (id) {
      await api.call('admin', { method: 'PUT', path: `/admin/agents/${id}`, json: body });
      agentIds.set(agent.username, id);
    } else {
      const made = await api.call<{ agentId: string }>('admin', { method: 'POST', path: '/admin/agents', json: body });
      agentIds.set(agent.username, made.body.agentId);
    }
  }
  let cleanedUp = 0;
  for (const id of agentIds.values()) cleanedUp += await finishLeftovers(api, id);

  const registered = await api.call<{ signingSecret?: string }>('interactions:write', {
    method: 'POST',
    path: '/interactions/Register',
    json: {
      provider: topo.provider,
      endpoint,
      headers: { Authorization: `Bearer ${headerToken}` },
      agentactionspermitted: { release: 1, hold: 1, transferToAgent: 1, transferToRoute: 1 },
    },
  });
  const key = `${api.baseUrl} ${accountId} ${topo.provider}`;
  const state = readState(stateFile);
  const secrets: string[] = [];
  if (registered.body.signingSecret) secrets.push(registered.body.signingSecret);
  else if (state.secrets[key]) secrets.push(state.secrets[key] as string);
  else {
    // Registered by someone else (or the state was lost): a new secret; the old one keeps signing for a day.
    const rotated = await api.call<{ signingSecret: string }>('admin', {
      method: 'POST',
      path: `/admin/providers/${encodeURIComponent(topo.provider)}/signing-secret`,
    });
    secrets.push(rotated.body.signingSecret);
  }
  state.secrets[key] = secrets[0] as string;
  writeState(stateFile, state);
  return { accountId, agentIds, signingSecrets: secrets, summariesEnabled, cleanedUp };
}

/** Releases and ends the wrap of whatever an agent still holds from an interrupted run; rejects ringing offers. */
export async function finishLeftovers(api: SuiteApi, agentId: string): Promise<number> {
  const base = `/agent-desktop/agents/${agentId}`;
  const held = await api.call<{ interactionId: string; state: string }[]>('agent', {
    method: 'GET',
    path: `${base}/interactions`,
    op: 'cleanup',
  });
  let n = 0;
  for (const i of held.body) {
    const path = `${base}/interactions/${i.interactionId}`;
    if (i.state !== 'wrap') {
      await api.call('agent', {
        method: 'POST',
        path: `${path}/release`,
        json: {},
        expect: [200, 404, 409],
        op: 'cleanup',
      });
    }
    await api.call('agent', {
      method: 'POST',
      path: `${path}/end-wrap`,
      json: {},
      expect: [204, 404, 409],
      op: 'cleanup',
    });
    n++;
  }
  return n;
}
