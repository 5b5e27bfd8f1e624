// Command-line arguments of the scripts and benchmarks run by hand: `--help` says what each flag does, and an unknown
// flag stops the script instead of being ignored (a mistyped `--only` would otherwise run every benchmark).

export interface ScriptUsage {
  /** How the script is run, e.g. `node bench/run.ts [flags]`. */
  readonly command: string;
  /** What the script does, a sentence or two. */
  readonly summary: string;
  /** Flags by name (`--quick`, `--only=LIST`: a `=` part names the value the flag takes), each with its help text. */
  readonly flags?: Readonly<Record<string, string>>;
  /** Positional arguments by name, each with its help text (all optional). */
  readonly positionals?: Readonly<Record<string, string>>;
}

export interface ScriptArgs {
  /** Flags given: true for a switch, the text after `=` for a flag that takes a value. */
  readonly flags: ReadonlyMap<string, string | true>;
  readonly positionals: readonly string[];
}

export function usageText(usage: ScriptUsage): string {
  const lines = [`Usage: ${usage.command}`, '', usage.summary];
  const section = (title: string, entries: Readonly<Record<string, string>> | undefined): void => {
    const names = Object.keys(entries ?? {});
    if (names.length === 0) return;
    const width = Math.max(...names.map((n) => n.length), '--help'.length);
    lines.push('', `${title}:`);
    for (const name of names) lines.push(`  ${name.padEnd(width)}  ${entries![name]}`);
  };
  section('Arguments', usage.positionals);
  section('Flags', { ...usage.flags, '--help': 'show this help and exit' });
  return `${lines.join('\n')}\n`;
}

/** Parses argv against the usage; `--help` prints the usage and exits 0, a bad argument prints why and exits 2. */
export function parseScriptArgs(usage: ScriptUsage, argv: readonly string[] = process.argv.slice(2)): ScriptArgs {
  const result = readScriptArgs(usage, argv);
  if (result === 'help') {
    process.stdout.write(usageText(usage));
    process.exit(0);
  }
  if (typeof result === 'string') {
    process.stderr.write(`${result}\n\n${usageText(usage)}`);
    process.exit(2);
  }
  return result;
}

/** The parse itself: the arguments, 'help', or the error's message. */
export function readScriptArgs(usage: ScriptUsage, argv: readonly string[]): ScriptArgs | 'help' | string {
  const takesValue = new Map<string, boolean>();
  for (const spec of Object.keys(usage.flags ?? {})) {
    const eq = spec.indexOf('=');
    takesValue.set(eq < 0 ? spec : spec.slice(0, eq), eq >= 0);
  }
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const wantsValue = takesValue.get(name);
    if (wantsValue === undefined) return `unknown flag: ${name}`;
    if (wantsValue && eq < 0) return `${name} needs a value: ${name}=...`;
    if (!wantsValue && eq >= 0) return `${name} takes no value`;
    flags.set(name, wantsValue ? arg.slice(eq + 1) : true);
  }
  const allowed = Object.keys(usage.positionals ?? {}).length;
  if (positionals.length > allowed && !Object.keys(usage.positionals ?? {}).some((p) => p.endsWith('...'))) {
    return `unexpected argument: ${positionals[allowed]}`;
  }
  return { flags, positionals };
}

/** The arguments of a benchmark that runs alone with only `--quick`; true when it was given. */
export function parseQuickFlag(command: string, summary: string): boolean {
  const args = parseScriptArgs({ command: `${command} [--quick]`, summary, flags: { '--quick': 'fewer iterations: a smoke run, not figures to quote' } });
  return args.flags.has('--quick');
}
