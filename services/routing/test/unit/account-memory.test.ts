import { AccountMemory } from '../../src/store/account-memory';
import { agentRecord, dispatched } from '../builders/routing.builders';

const account = 'acc-1';

function held(): AccountMemory {
  const memory = new AccountMemory();
  memory.load(account, [], [], 1000, 2000);
  return memory;
}

describe('AccountMemory: what the lease owner keeps of an account', () => {
  it('keeps the later version of an interaction whatever order the store answers arrive in', () => {
    const memory = held();
    const rec = dispatched({ accountId: account });
    const v2 = { rec: { ...rec, version: rec.version + 1 }, updatedAt: 2, decisionCount: 0 };
    const v1 = { rec, updatedAt: 1, decisionCount: 0 };
    memory.noteInteraction(account, v2);
    memory.noteInteraction(account, v1); // a read sent before the write, answered after it
    expect(memory.get(account)?.interactions.get(rec.interactionId)).toBe(v2);
    // At one version only the trace count moves (an unassigned decision does not change the version).
    const traced = { ...v2, decisionCount: 1 };
    memory.noteInteraction(account, traced);
    memory.noteInteraction(account, v2);
    expect(memory.get(account)?.interactions.get(rec.interactionId)).toBe(traced);
    memory.forgetInteraction(account, rec.interactionId);
    expect(memory.get(account)?.interactions.size).toBe(0);
  });

  it('keeps the later version of an agent and forgets a deleted one', () => {
    const memory = held();
    const agent = agentRecord({ accountId: account });
    const later = { ...agent, version: agent.version + 1, presence: 'Ready' as const };
    memory.noteAgent(account, later);
    memory.noteAgent(account, agent);
    expect(memory.get(account)?.agents.get(agent.agentId)).toBe(later);
    memory.forgetAgent(account, agent.agentId);
    expect(memory.get(account)?.agents.size).toBe(0);
  });

  it('ignores accounts it does not hold, and drops accounts idle since a time', () => {
    const memory = new AccountMemory();
    memory.noteAgent(account, agentRecord({ accountId: account }));
    expect(memory.get(account)).toBeUndefined();
    memory.load('busy', [], [], 5000, 9000);
    memory.load('idle', [], [], 1000, 9000);
    memory.dropIdle(3000);
    expect([memory.get('busy') !== undefined, memory.get('idle') !== undefined]).toEqual([true, false]);
    memory.drop('busy');
    expect(memory.size).toBe(0);
  });
});
