// A histogram for the request hot path: series found by a key string the caller builds (no label hashing per
// observation), exposed through the prom-client registry in its histogram format (_bucket with le, _sum, _count).

import type { Registry } from 'prom-client';

interface Series {
  readonly labels: Record<string, string>;
  readonly counts: number[];
  sum: number;
  count: number;
}

export interface KeyedHistogram {
  /** Records a value; `labels` is called only for a key seen for the first time. */
  observe(key: string, labels: () => Record<string, string>, value: number): void;
  /** The series of a key, to record into without finding it again (what a hot path keeps per route). */
  series(key: string, labels: () => Record<string, string>): (value: number) => void;
  /** Exposes the histogram through a registry (observations made before included). */
  register(registry: Registry): void;
}

export function createKeyedHistogram(name: string, help: string, buckets: readonly number[]): KeyedHistogram {
  const series = new Map<string, Series>();
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const s of series.values()) {
        let cumulative = 0;
        buckets.forEach((le, i) => {
          cumulative += s.counts[i]!;
          values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` });
        values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
        values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
    // Zeroed, not dropped: callers keep series (KeyedHistogram.series) to record into.
    reset: () => {
      for (const s of series.values()) {
        s.counts.fill(0);
        s.sum = 0;
        s.count = 0;
      }
    },
  };
  return {
    register(registry) {
      registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
    },
    observe(key, labels, value) {
      record(seriesOf(key, labels), value);
    },
    series(key, labels) {
      const s = seriesOf(key, labels);
      return (value) => record(s, value);
    },
  };

  function seriesOf(key: string, labels: () => Record<string, string>): Series {
    let s = series.get(key);
    if (!s) series.set(key, (s = { labels: labels(), counts: buckets.map(() => 0), sum: 0, count: 0 }));
    return s;
  }

  function record(s: Series, value: number): void {
    // The first bucket whose upper bound holds the value; beyond the last, only +Inf (count) does.
    for (let i = 0; i < buckets.length; i++) {
      if (value <= buckets[i]!) {
        s.counts[i]!++;
        break;
      }
    }
    s.sum += value;
    s.count++;
  }
}
