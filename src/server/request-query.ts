// A request's query, parsed once: the pipeline, the API handlers, discovery and the metrics all read it.

const QUERY = Symbol('capstan.query');

interface WithQuery {
  readonly url?: string;
  [QUERY]?: URLSearchParams;
}

/** The query of every request without one: shared, so its mutators throw. */
const NO_QUERY = new URLSearchParams();
for (const method of ['append', 'delete', 'set', 'sort'] as const) {
  Object.defineProperty(NO_QUERY, method, {
    value: () => {
      throw new TypeError('a request query is read-only');
    },
  });
}
Object.freeze(NO_QUERY);

/** The query of a request URL (never throws, whatever the request line held). Treat it as read-only. */
export function requestQuery(req: { readonly url?: string }): URLSearchParams {
  const r = req as WithQuery;
  let query = r[QUERY];
  if (query === undefined) {
    const url = r.url ?? '';
    const q = url.indexOf('?');
    r[QUERY] = query = q >= 0 && q < url.length - 1 ? new URLSearchParams(url.slice(q + 1)) : NO_QUERY;
  }
  return query;
}
