// Time buckets for the console's charts: at most `count` equal buckets from `start` to `end`,
// each at least a second wide. Pure.

export interface TimeBuckets {
  /** Unix seconds of the first bucket's start. */
  readonly start: number;
  readonly width: number;
  readonly count: number;
}

export function timeBuckets(startSeconds: number, endSeconds: number, maxCount: number): TimeBuckets {
  const start = Math.floor(startSeconds);
  const span = Math.max(1, Math.ceil(endSeconds) - start + 1);
  const width = Math.max(1, Math.ceil(span / maxCount));
  return { start, width, count: Math.ceil(span / width) };
}
