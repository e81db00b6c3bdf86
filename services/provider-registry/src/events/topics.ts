/** The topic of provider events (owned by this service). */
export const providerTopic = 'cc.provider.v1';

/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = [providerTopic];
