/** Numeric limits the contracts enforce, in one place so services, docs and tests agree. */
export const limits = {
  /** Interaction objects in one Invoke request (the spec leaves it open; chosen and documented). */
  maxRequestsPerInvoke: 100,
  /** Characters in the value of a clid, name or mediatype linkeddata item (spec). */
  maxLinkedDataValue: 50,
  /** linkeddata items on one interaction. */
  maxLinkedDataItems: 50,
  /** Skills on one interaction. */
  maxSkills: 50,
  /** Seconds: skill expiryafter and personal-queue timeouts (31 days minus one second, spec). */
  maxSeconds: 2678399,
  /** Call GUIDs in one recorded-call analysis list request (spec). */
  maxCalls: 50,
  /** The only cadence agent summaries support, in minutes (spec). */
  cadenceMinutes: 15,
  /** Default page size of listing endpoints. */
  defaultPageLimit: 100,
  /** Largest page size of listing endpoints. */
  maxPageLimit: 5000,
  /** Longest time window a statistics or summaries query may span, in days. */
  maxWindowDays: 31,
  /** Longest start+end window of the deprecated v0 statistics endpoints, in hours. */
  maxV0WindowHours: 25,
  /** Headers a provider may register. */
  maxProviderHeaders: 20,
  /** Characters in a provider header value. */
  maxHeaderValue: 4096,
  /** Characters in names: providers, routes, plans, skills, agents, queues. */
  maxName: 100,
  /** Characters in client-supplied identifiers: requestId, externalId. */
  maxIdentifier: 128,
} as const;
