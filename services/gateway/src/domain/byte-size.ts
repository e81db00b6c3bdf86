const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Parses a size such as `1mb`, `512kb` or `2048` (bytes) the way body-parser limits are written. */
export function parseByteSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(text);
  if (!m) throw new RangeError(`not a byte size: ${text}`);
  const bytes = Math.floor(Number(m[1]) * (units[(m[2] ?? 'b').toLowerCase()] ?? 1));
  if (bytes < 1) throw new RangeError(`byte size must be positive: ${text}`);
  return bytes;
}
