// A request's query, parsed once: the pipeline, the API handlers, discovery and the metrics all read it.

const QUERY = Symbol('capstan.query');

interface WithQuery {
  readonly url?: string;
  [QUERY]?: URLSearchParams;
}

/** The query of a request URL (never throws, whatever the request line held). Treat it as read-only. */
export function requestQuery(req: { readonly url?: string }): URLSearchParams {
  const r = req as WithQuery;
  let query = r[QUERY];
  if (query === undefined) {
    const url = r.url ?? '';
    const q = url.indexOf('?');
    r[QUERY] = query = new URLSearchParams(q >= 0 ? url.slice(q + 1) : '');
  }
  return query;
}
