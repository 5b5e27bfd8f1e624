// Standard cron schedules as CronJobs take them (robfig/cron's standard parser): five fields (minute, hour, day of
// month, month, day of week) with *, ?, lists, ranges, steps and month/day names, or @yearly, @annually, @monthly,
// @weekly, @daily, @midnight, @hourly. Times are UTC unless a time zone is given (spec.timeZone, or an older
// schedule's TZ= / CRON_TZ= prefix): then the fields are read on that zone's wall clock.

export interface CronSchedule {
  /** Whether a time (at minute precision) matches. */
  matches(at: Date): boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

function parseField(field: string, min: number, max: number, names: readonly string[] = [], nameBase = 0): Set<number> {
  const out = new Set<number>();
  const value = (text: string): number => {
    const i = names.indexOf(text.toLowerCase());
    const n = i >= 0 ? i + nameBase : Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`failed to parse int from ${text}`);
    return n;
  };
  for (const part of field.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step <= 0) throw new Error(`failed to parse int from ${stepText}`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [min, max];
    else if (range.includes('-')) [lo, hi] = range.split('-').map(value) as [number, number];
    else [lo, hi] = [value(range), stepText === undefined ? value(range) : max];
    if (lo > hi) throw new Error(`beginning of range (${lo}) beyond end of range (${hi}): ${part}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

/** A zone's offset from UTC at an instant, in ms, from Intl (kept per quarter hour: offsets change on those). */
function zoneOffset(timeZone: string): (t: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
  const known = new Map<number, number>();
  return (t) => {
    const bucket = Math.floor(t / 900_000);
    let offset = known.get(bucket);
    if (offset === undefined) {
      const at = bucket * 900_000;
      const parts: Record<string, number> = {};
      for (const p of format.formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
      offset = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) - at;
      if (known.size > 100_000) known.clear();
      known.set(bucket, offset);
    }
    return offset;
  };
}

export function parseCronSchedule(text: string, timeZone?: string): CronSchedule {
  let trimmed = text.trim();
  const prefix = /^(?:CRON_)?TZ=(\S+)\s+/.exec(trimmed);
  if (prefix) {
    timeZone ??= prefix[1];
    trimmed = trimmed.slice(prefix[0].length);
  }
  // An unknown zone throws here (kube: the UnknownTimeZone event, and no Job).
  const offset = timeZone && timeZone !== 'UTC' ? zoneOffset(timeZone) : undefined;
  const spec = DESCRIPTORS[trimmed] ?? trimmed;
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${text}`);
  const minutes = parseField(fields[0], 0, 59);
  const hours = parseField(fields[1], 0, 23);
  const days = parseField(fields[2], 1, 31);
  const months = parseField(fields[3], 1, 12, MONTHS, 1);
  const weekdays = parseField(fields[4], 0, 7, DAYS);
  if (weekdays.has(7)) weekdays.add(0);
  const anyDay = fields[2] === '*' || fields[2] === '?';
  const anyWeekday = fields[4] === '*' || fields[4] === '?';
  return {
    matches(utc) {
      const at = offset ? new Date(utc.getTime() + offset(utc.getTime())) : utc;
      if (!minutes.has(at.getUTCMinutes()) || !hours.has(at.getUTCHours()) || !months.has(at.getUTCMonth() + 1)) return false;
      const dom = days.has(at.getUTCDate());
      const dow = weekdays.has(at.getUTCDay());
      // Cron's rule: with both day fields restricted, either may match.
      if (anyDay || anyWeekday) return dom && dow;
      return dom || dow;
    },
  };
}

/** The latest scheduled time after `since` and at or before `now` (minute precision), if any. */
export function lastScheduleBetween(schedule: CronSchedule, since: number, now: number): number | undefined {
  const minute = 60_000;
  const earliest = Math.floor(since / minute) * minute + minute;
  // At most a year back: older missed runs would not be started anyway.
  const floor = Math.max(earliest, now - 366 * 24 * 60 * minute);
  for (let t = Math.floor(now / minute) * minute; t >= floor; t -= minute) if (schedule.matches(new Date(t))) return t;
  return undefined;
}
