import { accountTopic } from './account-events';

/** Topics this service publishes to (created at start if missing). */
export const producedTopics: string[] = [accountTopic];
