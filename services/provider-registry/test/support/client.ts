/** A JSON response as the tests read it. */
export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
  text: string;
}

/**
 * An HTTP client of the provider API with one bearer token: real HTTP against a base URL, which is the
 * registry itself today and can be the gateway (same paths) in the end-to-end suite.
 */
export function client(baseUrl: string, token?: string) {
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    register: (body: unknown, headers?: Record<string, string>) =>
      send('POST', '/interactions/Register', body, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => send('POST', path, body, headers),
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    delete: (path: string) => send('DELETE', path),
  };
}

/** The client type. */
export type Client = ReturnType<typeof client>;

/** The admin path of a provider (name URL-encoded). */
export const providerPath = (name: string) => `/admin/providers/${encodeURIComponent(name)}`;
