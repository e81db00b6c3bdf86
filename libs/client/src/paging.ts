/** The paging envelope of the listings: `{meta: {page, count, pageCount, totalCount}, items, upTo?}`. */
export interface Page<T> {
  meta: { page: number; count: number; pageCount: number; totalCount: number };
  items: T[];
  /** Statistics and summaries: data is complete up to here; the next poll's `start`. */
  upTo?: string;
}

/**
 * Yields every page of a listing, from page 1 to `meta.pageCount`. `fetchPage` must ask for the same window each
 * time: pin `end` (e.g. to the first page's `upTo`) when the listing's `end` defaults to now.
 */
export async function* pages<P extends Page<unknown>>(fetchPage: (page: number) => Promise<P>): AsyncGenerator<P> {
  for (let page = 1; ; page += 1) {
    const envelope = await fetchPage(page);
    yield envelope;
    if (envelope.items.length === 0 || envelope.meta.page >= envelope.meta.pageCount) return;
  }
}

/** Every item of every page, and the `upTo` of the first page (the instant the listing is complete up to). */
export async function collectPages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
): Promise<{ items: T[]; upTo: string | undefined; totalCount: number }> {
  const items: T[] = [];
  let upTo: string | undefined;
  let totalCount = 0;
  for await (const envelope of pages(fetchPage)) {
    if (envelope.meta.page === 1) {
      upTo = envelope.upTo;
      totalCount = envelope.meta.totalCount;
    }
    items.push(...envelope.items);
  }
  return { items, upTo, totalCount };
}

/**
 * Incremental polling: fetches the window starting at `start` (all its pages), and returns its items with the next
 * window's start (`upTo`). Call again with `next` to get only what arrived since.
 */
export async function pollWindow<T>(
  start: string,
  fetchPage: (window: { start: string; end: string | undefined; page: number }) => Promise<Page<T>>,
): Promise<{ items: T[]; next: string }> {
  let end: string | undefined;
  const { items, upTo } = await collectPages<T>(async (page) => {
    const envelope = await fetchPage({ start, end, page });
    // Later pages ask for exactly the first page's window, so items arriving meanwhile cannot shift the pages.
    if (page === 1) end = envelope.upTo;
    return envelope;
  });
  return { items, next: upTo ?? start };
}

/** The success body of an openapi-fetch call (errors were already thrown by the client): `await ok(api.GET(...))`. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined && response.status !== 204) {
    throw new Error(`${response.status} answer without a body`);
  }
  return data as T;
}
