// A CronJob's schedule as robfig/cron's ParseStandard reads it (kube's validateScheduleFormat): five fields or a
// descriptor, an optional TZ= or CRON_TZ= prefix; its error messages are kube's Invalid details.

interface CronField {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const CRON_FIELDS: CronField[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } },
  { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function cronInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function cronValue(expr: string, f: CronField): number {
  const named = f.names?.[expr.toLowerCase()];
  return named !== undefined ? named : cronInt(expr);
}

function checkCronRange(expr: string, f: CronField): void {
  if (expr === '*' || expr === '?') return;
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = f.min;
    end = f.max;
  } else {
    start = cronValue(lowAndHigh[0], f);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = cronValue(lowAndHigh[1], f);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = cronInt(rangeAndStep[1]);
    if (lowAndHigh.length === 1) end = f.max;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < f.min) throw new Error(`beginning of range (${start}) below minimum (${f.min}): ${expr}`);
  if (end > f.max) throw new Error(`end of range (${end}) above maximum (${f.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** robfig/cron's ParseStandard error, or undefined when the schedule parses. */
export function cronScheduleError(schedule: string): string | undefined {
  let spec = schedule;
  const tz = /^(?:CRON_)?TZ=\S+\s*/.exec(spec);
  if (tz) spec = spec.slice(tz[0].length);
  if (spec.trim() === '') return 'empty spec string';
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return undefined;
    if (spec.startsWith('@every ')) return /^@every (\d+(\.\d+)?(ns|us|\u00b5s|ms|s|m|h))+$/.test(spec) ? undefined : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(spec.slice(7))}`;
    return `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.trim().split(/\s+/);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  try {
    fields.forEach((field, i) => {
      for (const expr of field.split(',')) checkCronRange(expr, CRON_FIELDS[i]);
    });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}
