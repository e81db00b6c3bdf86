/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = ['cc.provider.v1'];
