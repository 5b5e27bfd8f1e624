// k8s.io/apimachinery/pkg/util/duration: durations the way kubectl shows ages ("5m", "3h10m", "2d4h", "3y").
// Durations are in nanoseconds, as Go's time.Duration; Go's int() conversions truncate toward zero.

const SECOND = 1e9;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function trunc(x: number): number {
  return Math.trunc(x);
}

/** HumanDuration: about 2-3 significant figures. */
export function humanDuration(ns: number): string {
  const seconds = trunc(ns / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = trunc(ns / MINUTE);
  if (minutes < 10) {
    const s = trunc(ns / SECOND) % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = trunc(ns / HOUR);
  if (hours < 8) {
    const m = trunc(ns / MINUTE) % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${trunc(hours / 24)}d` : `${trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = trunc(hours / 24) % 365;
    return dy === 0 ? `${trunc(hours / 24 / 365)}y` : `${trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${trunc(hours / 24 / 365)}y`;
}

/** ShortHumanDuration: one unit only. */
export function shortHumanDuration(ns: number): string {
  const seconds = trunc(ns / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = trunc(ns / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = trunc(ns / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${trunc(hours / 24)}d`;
  return `${trunc(ns / HOUR / 24 / 365)}y`;
}
