// The median the benchmarks report: the middle value (the upper of the two middle ones of an
// even count), of numbers, or of rounds by a figure so that the round's other figures come with it.

export function medianBy<T>(values: readonly T[], by: (value: T) => number): T {
  if (values.length === 0) throw new Error('no values to take the median of');
  return [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)]!;
}

export function medianOf(values: readonly number[]): number {
  return medianBy(values, (v) => v);
}
