/** One hour in milliseconds: the size of a storage bucket. */
export const hourMs = 3_600_000;

/** The bucket (hours since the epoch) an instant falls in. */
export function hourOf(ms: number): number {
  return Math.floor(ms / hourMs);
}

/** Every bucket overlapping [startMs, endMs), oldest first. */
export function hoursOf(startMs: number, endMs: number): number[] {
  const out: number[] = [];
  for (let h = hourOf(startMs); h * hourMs < endMs; h++) out.push(h);
  return out;
}

/** ISO 8601 UTC with milliseconds, as every response writes timestamps. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A v0 duration: `hh:mm:ss` (hours may exceed 99), rounded down to whole seconds. */
export function hms(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(total / 3600))}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
}
