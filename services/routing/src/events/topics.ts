/** Topic of interaction lifecycle events (owned by routing). */
export const interactionTopic = 'cc.interaction.v1';
/** Topic of agent presence, workload and segment events (owned by routing). */
export const agentActivityTopic = 'cc.agent-activity.v1';
/** Topic routing consumes to keep its provider read model. */
export const providerTopic = 'cc.provider.v1';

/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = [interactionTopic, agentActivityTopic];
