// A small command-line parser with pflag's rules and messages (what kube-apiserver users know):
// --name=value, --name value, -s value, -s=value; bool flags take no separate value (--flag, --flag=false);
// repeated list/map flags accumulate; "--" ends the flags.

export type FlagType = 'string' | 'int' | 'bool' | 'stringList' | 'map';

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: FlagType;
  /** Shown in --help: the value's kind, e.g. "port", "path". */
  readonly valueName?: string;
  readonly help: string;
  /** Shown in --help as (default X); also the value when the flag is absent. */
  readonly default?: string | number | boolean | readonly string[];
}

export type FlagValue = string | number | boolean | string[];

export interface ParsedFlags {
  readonly values: Record<string, FlagValue>;
  /** Names of the flags given on the command line. */
  readonly given: ReadonlySet<string>;
  readonly positional: readonly string[];
}

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

function flagLabel(spec: FlagSpec): string {
  return spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`;
}

const GO_BOOL: Record<string, boolean> = {
  '1': true, t: true, T: true, true: true, TRUE: true, True: true,
  '0': false, f: false, F: false, false: false, FALSE: false, False: false,
};

function convert(spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'bool': {
      const b = GO_BOOL[raw];
      if (b === undefined) throw new FlagError(`invalid argument ${JSON.stringify(raw)} for "${flagLabel(spec)}" flag: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return b;
    }
    case 'int': {
      if (!/^[+-]?\d+$/.test(raw)) throw new FlagError(`invalid argument ${JSON.stringify(raw)} for "${flagLabel(spec)}" flag: strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw new FlagError(`invalid argument ${JSON.stringify(raw)} for "${flagLabel(spec)}" flag: strconv.ParseInt: parsing ${JSON.stringify(raw)}: value out of range`);
      return n;
    }
    case 'stringList':
      return raw === '' ? [] : raw.split(',').map((s) => s.trim());
    default:
      return raw;
  }
}

export function parseFlags(specs: readonly FlagSpec[], argv: readonly string[]): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short).map((s) => [s.short!, s]));
  const values: Record<string, FlagValue> = {};
  const given = new Set<string>();
  const positional: string[] = [];

  const set = (spec: FlagSpec, raw: string): void => {
    const v = convert(spec, raw);
    const first = !given.has(spec.name);
    given.add(spec.name);
    if (spec.type === 'stringList') {
      // The first occurrence replaces the default; later ones append (pflag StringSlice).
      values[spec.name] = first ? (v as string[]) : [...(values[spec.name] as string[]), ...(v as string[])];
    } else if (spec.type === 'map') {
      // Map flags merge: keep every occurrence, comma-joined; the consumer parses the pairs.
      const prev = first ? '' : (values[spec.name] as string);
      values[spec.name] = prev && raw ? `${prev},${raw}` : prev || raw;
    } else {
      values[spec.name] = v;
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const spec = byName.get(name);
      if (!spec) throw new FlagError(`unknown flag: --${name}`);
      if (eq >= 0) set(spec, body.slice(eq + 1));
      else if (spec.type === 'bool') set(spec, 'true');
      else if (i + 1 < argv.length) set(spec, argv[++i]);
      else throw new FlagError(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // Shorthand: -v 3, -v=3, -v3, -h.
      const c = arg[1];
      const spec = byShort.get(c);
      if (!spec) throw new FlagError(`unknown shorthand flag: '${c}' in ${arg}`);
      const rest = arg.slice(2);
      if (rest.startsWith('=')) set(spec, rest.slice(1));
      else if (rest !== '') {
        if (spec.type === 'bool') throw new FlagError(`unknown shorthand flag: '${rest[0]}' in ${arg}`);
        set(spec, rest);
      } else if (spec.type === 'bool') set(spec, 'true');
      else if (i + 1 < argv.length) set(spec, argv[++i]);
      else throw new FlagError(`flag needs an argument: '${c}' in -${c}`);
      continue;
    }
    positional.push(arg);
  }

  for (const spec of specs) {
    if (given.has(spec.name) || spec.default === undefined) continue;
    const d = spec.default;
    values[spec.name] = Array.isArray(d) ? [...d] : (d as FlagValue);
  }
  return { values, given, positional };
}

function defaultText(spec: FlagSpec): string {
  const d = spec.default;
  if (d === undefined || d === '' || (Array.isArray(d) && d.length === 0)) return '';
  // Zero values are not shown (pflag).
  if (d === false || d === 0) return '';
  if (Array.isArray(d)) return ` (default [${d.join(',')}])`;
  if (typeof d === 'string') return ` (default ${JSON.stringify(d)})`;
  return ` (default ${String(d)})`;
}

/** pflag-style usage lines: names and value kind in a left column, help (with default) on the right. */
export function formatFlagUsage(specs: readonly FlagSpec[]): string {
  const left = specs.map((s) => {
    const names = s.short ? `-${s.short}, --${s.name}` : `    --${s.name}`;
    const kind = s.type === 'bool' ? '' : ` ${s.valueName ?? (s.type === 'int' ? 'int' : s.type === 'stringList' ? 'strings' : 'string')}`;
    return `  ${names}${kind}`;
  });
  const width = Math.max(...left.map((l) => l.length)) + 3;
  return specs
    .map((s, i) => {
      const lines = `${s.help}${defaultText(s)}`.split('\n');
      const pad = ' '.repeat(width);
      return left[i].padEnd(width) + lines.map((l, j) => (j === 0 ? l : pad + l)).join('\n');
    })
    .join('\n');
}
