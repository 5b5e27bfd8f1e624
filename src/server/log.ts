// Structured logging: one JSON object per line on stderr (or a given sink).
// Verbosity follows klog: info() prints at verbosity >= 0 (keep it to start-up facts), v(n, ...) only at >= n;
// a negative verbosity leaves warnings and errors only.
// Never pass a credential, token or key in `fields`: nothing here redacts.

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  readonly verbosity: number;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Logs at info level when the verbosity is at least `level`. */
  v(level: number, msg: string, fields?: LogFields): void;
  enabled(level: number): boolean;
}

export interface LoggerOptions {
  verbosity?: number;
  /** Where the lines go (default: process.stderr). */
  write?: (line: string) => void;
}

function errorText(value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const verbosity = options.verbosity ?? 0;
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const emit = (level: string, msg: string, fields?: LogFields): void => {
    const entry: Record<string, unknown> = { ts: new Date().toISOString(), level, msg };
    if (fields) for (const [k, val] of Object.entries(fields)) entry[k] = errorText(val);
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ ts: entry.ts, level, msg });
    }
    write(line + '\n');
  };
  return {
    verbosity,
    info: (msg, fields) => {
      if (verbosity >= 0) emit('info', msg, fields);
    },
    warn: (msg, fields) => emit('warning', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    v: (level, msg, fields) => {
      if (verbosity >= level && verbosity >= 0) emit('info', msg, { v: level, ...fields });
    },
    enabled: (level) => verbosity >= level && verbosity >= 0,
  };
}

/** A logger that drops everything (library default when logLevel is negative). */
export const silentLogger: Logger = {
  verbosity: -1,
  info: () => {},
  warn: () => {},
  error: () => {},
  v: () => {},
  enabled: () => false,
};
