/** Topics this service publishes to (created at start if missing): none, it only consumes. */
export const producedTopics: string[] = [];
