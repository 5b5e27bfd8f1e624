// HTTP/1.1 responses that keep their head's fields in one flat list (name, value, name, value...) until the head is
// written, and hand Node that list whole. Node's own ServerResponse files each setHeader() in a per-response
// dictionary under its lower-cased name, then walks it again to write the head: for the half-dozen fields of a
// cached get (Audit-Id, Cache-Control, the two APF fields, Content-Type, Content-Length) that bookkeeping cost about
// 4% of the get's CPU. Names and values are validated when the head is written (Node checks a list it is given),
// not at setHeader(); what goes on the wire is the same.

import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';

type FieldValue = number | string | string[];

// Not `import`ed: node:http as an ES module also loads its bundled fetch and WebSocket clients (see listen.ts).
const { ServerResponse } = process.getBuiltinModule('node:http');

const valuesOf = (v: FieldValue | readonly string[]): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);

export class Http1Response<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** The head's fields, each name once (as last spelled), in the order first set. */
  private fields: (string | FieldValue)[] = [];

  private fieldIndex(name: string): number {
    let lower: string | undefined;
    for (let i = 0; i < this.fields.length; i += 2) {
      const n = this.fields[i] as string;
      if (n.length !== name.length) continue;
      if (n === name || n.toLowerCase() === (lower ??= name.toLowerCase())) return i;
    }
    return -1;
  }

  override setHeader(name: string, value: FieldValue): this {
    // Node's errors: the head already sent, or no value.
    if (this.headersSent || value === undefined) return super.setHeader(name, value);
    const i = this.fieldIndex(name);
    if (i < 0) this.fields.push(name, value);
    else {
      this.fields[i] = name;
      this.fields[i + 1] = value;
    }
    return this;
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    if (this.headersSent || value === undefined) return super.appendHeader(name, value);
    const i = this.fieldIndex(name);
    if (i < 0) this.fields.push(name, Array.isArray(value) ? [...value] : (value as string));
    else this.fields[i + 1] = [...valuesOf(this.fields[i + 1] as FieldValue), ...valuesOf(value)];
    return this;
  }

  override getHeader(name: string): FieldValue | undefined {
    const i = this.fieldIndex(name);
    return i < 0 ? undefined : (this.fields[i + 1] as FieldValue);
  }

  override hasHeader(name: string): boolean {
    return this.fieldIndex(name) >= 0;
  }

  override removeHeader(name: string): void {
    if (this.headersSent) return super.removeHeader(name);
    const i = this.fieldIndex(name);
    if (i >= 0) this.fields.splice(i, 2);
  }

  override getHeaderNames(): string[] {
    return this.getRawHeaderNames().map((n) => n.toLowerCase());
  }

  getRawHeaderNames(): string[] {
    return this.fields.filter((_, i) => i % 2 === 0) as string[];
  }

  override getHeaders(): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = Object.create(null);
    for (let i = 0; i < this.fields.length; i += 2) out[(this.fields[i] as string).toLowerCase()] = this.fields[i + 1] as OutgoingHttpHeader;
    return out;
  }

  override writeHead(statusCode: number, reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[], headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
    const given = typeof reason === 'string' ? headers : reason;
    if (given && !this.headersSent) {
      if (!Array.isArray(given)) {
        for (const name of Object.keys(given)) if (given[name] !== undefined) this.setHeader(name, given[name]!);
      } else {
        // As Node: the list's fields replace those set before, and may repeat among themselves.
        const pairs: [string, FieldValue][] = Array.isArray(given[0]) ? (given as unknown as [string, FieldValue][]) : [];
        if (pairs.length === 0) for (let i = 0; i + 1 < given.length; i += 2) pairs.push([String(given[i]), given[i + 1] as FieldValue]);
        for (const [name] of pairs) this.removeHeader(name);
        for (const [name, value] of pairs) this.appendHeader(name, value as string);
      }
    }
    const fields = this.fields as OutgoingHttpHeader[];
    return typeof reason === 'string' ? super.writeHead(statusCode, reason, fields) : super.writeHead(statusCode, fields);
  }
}
