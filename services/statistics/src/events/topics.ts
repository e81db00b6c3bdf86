/** Topics this service publishes to (created at start if missing): none, it only reads. */
export const producedTopics: string[] = [];

/** Topics the statistics consumer group reads. */
export const consumedTopics = ['cc.agent-activity.v1', 'cc.interaction.v1'];
