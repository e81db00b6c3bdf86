/** An epoch-millisecond instant as the events write it: UTC ISO 8601 with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
