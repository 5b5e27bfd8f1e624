import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastScheduleBetween, parseCronSchedule } from './cron-schedule.ts';

const at = (iso: string) => new Date(iso);

test('cron fields: steps, ranges, lists, names, descriptors, and the either-day rule', () => {
  const every5 = parseCronSchedule('*/5 * * * *');
  assert.equal(every5.matches(at('2026-03-01T10:05:00Z')), true);
  assert.equal(every5.matches(at('2026-03-01T10:06:00Z')), false);
  const weekdays = parseCronSchedule('30 9-17/4 * jan-mar mon-fri');
  assert.equal(weekdays.matches(at('2026-03-02T13:30:00Z')), true); // a Monday, 13 in 9,13,17
  assert.equal(weekdays.matches(at('2026-03-01T13:30:00Z')), false); // a Sunday
  assert.equal(parseCronSchedule('@hourly').matches(at('2026-03-01T10:00:00Z')), true);
  // Both day fields restricted: the 1st of the month or any Sunday.
  const either = parseCronSchedule('0 0 1 * 0');
  assert.equal(either.matches(at('2026-03-08T00:00:00Z')), true);
  assert.equal(either.matches(at('2026-04-01T00:00:00Z')), true);
  assert.equal(either.matches(at('2026-04-02T00:00:00Z')), false);
  assert.throws(() => parseCronSchedule('* * *'), /expected exactly 5 fields, found 3/);
  assert.throws(() => parseCronSchedule('61 * * * *'), /failed to parse int from 61/);
});

test('the latest scheduled time in a window', () => {
  const s = parseCronSchedule('*/5 * * * *');
  assert.equal(lastScheduleBetween(s, Date.parse('2026-03-01T10:03:30Z'), Date.parse('2026-03-01T10:05:30Z')), Date.parse('2026-03-01T10:05:00Z'));
  assert.equal(lastScheduleBetween(s, Date.parse('2026-03-01T10:05:00Z'), Date.parse('2026-03-01T10:09:59Z')), undefined);
  assert.equal(lastScheduleBetween(s, Date.parse('2026-03-01T10:00:00Z'), Date.parse('2026-03-01T10:17:00Z')), Date.parse('2026-03-01T10:15:00Z'));
});

test('a time zone: the fields are read on its wall clock, daylight saving included; a TZ= prefix names one too', () => {
  const nineInBerlin = parseCronSchedule('0 9 * * *', 'Europe/Berlin');
  assert.equal(nineInBerlin.matches(at('2026-01-15T08:00:00Z')), true); // CET, UTC+1
  assert.equal(nineInBerlin.matches(at('2026-07-15T07:00:00Z')), true); // CEST, UTC+2
  assert.equal(nineInBerlin.matches(at('2026-07-15T08:00:00Z')), false);
  assert.equal(parseCronSchedule('CRON_TZ=America/New_York 30 6 * * *').matches(at('2026-01-15T11:30:00Z')), true);
  assert.equal(parseCronSchedule('0 9 * * *', 'UTC').matches(at('2026-01-15T09:00:00Z')), true);
  assert.throws(() => parseCronSchedule('0 9 * * *', 'Mars/Olympus'), RangeError);
  // A day's window in Tokyo (UTC+9): midnight local is 15:00 UTC the day before.
  const midnight = parseCronSchedule('@daily', 'Asia/Tokyo');
  assert.equal(lastScheduleBetween(midnight, Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-03-02T00:00:00Z')), Date.parse('2026-03-01T15:00:00Z'));
});
