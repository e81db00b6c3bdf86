/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = ['cc.interaction.v1', 'cc.agent-activity.v1'];
