/** The comparison key of a case-insensitive name (skills, agents' usernames, routes, plans). */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** Whether two names are equal ignoring case. */
export function sameName(a: string, b: string): boolean {
  return nameKey(a) === nameKey(b);
}
