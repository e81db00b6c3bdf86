/** The topic this service publishes analysis events on. */
export const analysisTopic = 'cc.analysis.v1';

/** The topic recordings arrive on (interaction.recorded). */
export const interactionTopic = 'cc.interaction.v1';

/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = [analysisTopic];
