/** The unit of breakers and concurrency limits: one provider of one account (unambiguous for any names). */
export function endpointKeyOf(accountId: string, provider: string): string {
  return JSON.stringify([accountId, provider]);
}

/** The account and provider an endpoint key names. */
export function parseEndpointKey(key: string): { accountId: string; provider: string } {
  const [accountId, provider] = JSON.parse(key) as [string, string];
  return { accountId, provider };
}

/** The unit of ordering: one interaction of one account (interaction ids are GUIDs, so `:` cannot clash). */
export function interactionKeyOf(accountId: string, interactionId: string): string {
  return `${accountId}:${interactionId}`;
}
