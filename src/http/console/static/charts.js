// @ts-check
// The console script, part 2: the charts, SVG drawn with createElementNS. Every chart has a
// time axis (UTC, ticks at round times) and a value axis (ticks at round values, labelled),
// and says its latest value in words. The value axis never zooms in so far that a change too
// small to matter looks like a cliff: its span is at least a tenth of the values' size (a
// supply that moves by a millionth of a percent draws a flat line), and counts start at zero.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
const MIN_RELATIVE_SPAN = 0.1;
const TIME_STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
];

function niceStep(span, ticks) {
  const raw = span / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * mag;
}

/** The value axis: the data's range widened to MIN_RELATIVE_SPAN of its size, to 0 for counts. */
function valueDomain(values, fromZero) {
  const present = values.filter((v) => v !== null && Number.isFinite(v));
  let lo = present.length ? Math.min(...present) : 0;
  let hi = present.length ? Math.max(...present) : 0;
  if (fromZero) {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  const size = Math.max(Math.abs(lo), Math.abs(hi));
  const minSpan = Math.max(size * MIN_RELATIVE_SPAN, 1);
  if (hi - lo < minSpan) {
    const mid = (hi + lo) / 2;
    lo = mid - minSpan / 2;
    hi = mid + minSpan / 2;
    if (lo < 0 && present.every((v) => v >= 0)) {
      hi -= lo;
      lo = 0;
    }
  }
  const step = niceStep(hi - lo, 4);
  lo = Math.floor(lo / step + 1e-9) * step;
  hi = Math.ceil(hi / step - 1e-9) * step;
  if (hi <= lo) hi = lo + step;
  const ticks = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(Math.abs(v) < step / 1e6 ? 0 : v);
  return { lo, hi, ticks };
}

/** 1234 -> '1,234', 2.5e9 -> '2.5 B': short labels for the value axis. */
function compact(v) {
  const a = Math.abs(v);
  /** @type {Array<[number, string]>} */
  const units = [
    [1e12, ' T'],
    [1e9, ' B'],
    [1e6, ' M'],
    [1e3, ' k'],
  ];
  if (a >= 1e4)
    for (const [size, unit] of units) if (a >= size) return String(Number((v / size).toFixed(2))) + unit;
  return group(String(Number(v.toFixed(a < 10 ? 2 : a < 100 ? 1 : 0))));
}

function two(n) {
  return String(n).padStart(2, '0');
}

/** Tick times at a round step, labelled for the span (UTC); at least two between whole seconds 1 s or more apart. */
function timeTicks(t0, t1, count) {
  const span = Math.max(1, t1 - t0);
  let at = TIME_STEPS.findIndex((s) => span / s <= count);
  if (at < 0) at = TIME_STEPS.length - 1;
  const marks = (step) => {
    const times = [];
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) times.push(t);
    return times;
  };
  // Round times of the chosen step may fall only once in a short span (a second's data, or 150 s
  // at a 120 s step): a finer step then, down to 1 s, so that the axis always shows two.
  let times = marks(TIME_STEPS[at]);
  while (times.length < 2 && at > 0) times = marks(TIME_STEPS[--at]);
  const step = TIME_STEPS[at];
  return times.map((t) => {
    const d = new Date(t * 1000);
    const hm = two(d.getUTCHours()) + ':' + two(d.getUTCMinutes());
    const day = two(d.getUTCMonth() + 1) + '-' + two(d.getUTCDate());
    const label =
      step >= 86400
        ? day
        : span > 86400
          ? day + ' ' + hm
          : step < 60
            ? hm + ':' + two(d.getUTCSeconds())
            : hm;
    return { t, label };
  });
}

/** The chart frame: axes, grid, labels; x(t) and y(v) map into it. */
function frame(opts) {
  const w = opts.width,
    h = opts.height || 130;
  const values = opts.domainValues;
  const dom = valueDomain(values, opts.fromZero);
  const labels = dom.ticks.map((v) => (opts.tickFormat || compact)(v));
  const left = 8 + 6 * Math.max(...labels.map((l) => l.length));
  const right = 8,
    top = 8,
    bottom = 20;
  // Whole seconds at both ends: a span of at least 1 s then holds two whole-second ticks.
  const t0 = Math.floor(opts.t0),
    t1 = Math.max(Math.ceil(opts.t1), t0 + 1);
  const x = (t) => left + ((t - t0) / (t1 - t0)) * (w - left - right);
  const y = (v) => h - bottom - ((v - dom.lo) / (dom.hi - dom.lo)) * (h - top - bottom);
  const node = svg('svg', {
    viewBox: '0 0 ' + w + ' ' + h,
    width: w,
    height: h,
    role: 'img',
    'aria-label': opts.title,
    class: 'chart',
    'data-y-lo': dom.lo,
    'data-y-hi': dom.hi,
  });
  dom.ticks.forEach((v, i) => {
    node.append(
      svg('line', {
        x1: left,
        x2: w - right,
        y1: y(v).toFixed(1),
        y2: y(v).toFixed(1),
        class: v === dom.lo ? 'axis' : 'grid',
      }),
    );
    const label = svg('text', {
      x: left - 4,
      y: (y(v) + 3).toFixed(1),
      'text-anchor': 'end',
      class: 'y-tick',
    });
    label.textContent = labels[i];
    node.append(label);
  });
  const ticks = timeTicks(t0, t1, Math.max(2, Math.floor((w - left) / 70)));
  for (const tick of ticks) {
    node.append(
      svg('line', {
        x1: x(tick.t).toFixed(1),
        x2: x(tick.t).toFixed(1),
        y1: h - bottom,
        y2: h - bottom + 3,
        class: 'axis',
      }),
    );
    // A label that would run off an end is anchored to it.
    const half = 3 * tick.label.length;
    const anchor = x(tick.t) + half > w ? 'end' : x(tick.t) - half < 0 ? 'start' : 'middle';
    const at = anchor === 'end' ? w - 1 : anchor === 'start' ? 1 : x(tick.t);
    const label = svg('text', { x: at.toFixed(1), y: h - 5, 'text-anchor': anchor, class: 'x-tick' });
    label.textContent = tick.label;
    node.append(label);
  }
  return { node, x, y, w, h, left, right, top, bottom, dom };
}

function chartBox(title, summary, node) {
  return el(
    'figure',
    { className: 'chart-box' },
    el(
      'figcaption',
      {},
      el('span', { className: 'chart-title', text: title }),
      el('span', { className: 'value-label', text: summary }),
    ),
    node,
  );
}

/** A line over time: points [{t, v}] (v null: no value then); the latest value is labelled. */
function lineChart(opts) {
  const points = opts.points.length ? opts.points : [{ t: Date.now() / 1000, v: 0 }];
  const t0 = points[0].t,
    t1 = points[points.length - 1].t;
  const marks = opts.marks || [];
  const f = frame({ ...opts, t0, t1, domainValues: points.map((p) => p.v).concat(marks.map((m) => m.v)) });
  for (const mark of marks) {
    f.node.append(
      svg('line', {
        x1: f.left,
        x2: f.w - f.right,
        y1: f.y(mark.v).toFixed(1),
        y2: f.y(mark.v).toFixed(1),
        class: 'mark',
      }),
    );
    const label = svg('text', {
      x: f.w - f.right,
      y: (f.y(mark.v) - 3).toFixed(1),
      'text-anchor': 'end',
      class: 'mark-label',
    });
    label.textContent = mark.label;
    f.node.append(label);
  }
  // Buckets without a value (no attempt, say) are stepped over: the line joins those that have one.
  const drawn = points
    .filter((p) => p.v !== null)
    .map((p) => f.x(p.t).toFixed(1) + ',' + f.y(p.v).toFixed(1));
  if (drawn.length === 1)
    drawn.push((Number(drawn[0].split(',')[0]) + 2).toFixed(1) + ',' + drawn[0].split(',')[1]);
  if (drawn.length) f.node.append(svg('polyline', { points: drawn.join(' '), class: 'line' }));
  const last = points.filter((p) => p.v !== null).pop();
  if (last)
    f.node.append(
      svg('circle', { cx: f.x(last.t).toFixed(1), cy: f.y(last.v).toFixed(1), r: 2.5, class: 'dot' }),
    );
  return chartBox(opts.title, opts.summary, f.node);
}

/** Bars over time: buckets [{t, parts: [{v, cls, label}]}] stacked, each bucket one slot. */
function barChart(opts) {
  const buckets = opts.buckets.length ? opts.buckets : [{ t: Date.now() / 1000, parts: [] }];
  const width = opts.bucketSeconds || 1;
  const t0 = buckets[0].t,
    t1 = buckets[buckets.length - 1].t + width;
  const totals = buckets.map((b) => b.parts.reduce((s, p) => s + p.v, 0));
  const f = frame({
    ...opts,
    t0,
    t1,
    fromZero: true,
    domainValues: totals.concat([4]),
    tickFormat: (v) => compact(v),
  });
  for (const b of buckets) {
    const x0 = f.x(b.t),
      x1 = f.x(b.t + width);
    const barWidth = Math.max(1, Math.min(24, x1 - x0 - 2));
    let base = 0;
    for (const part of b.parts) {
      if (part.v === 0) continue;
      const yTop = f.y(base + part.v),
        yBase = f.y(base);
      const bar = svg('rect', {
        x: (x0 + (x1 - x0 - barWidth) / 2).toFixed(1),
        y: yTop.toFixed(1),
        width: barWidth.toFixed(1),
        height: Math.max(0.5, yBase - yTop).toFixed(1),
        class: 'bar ' + part.cls,
      });
      const tip = svg('title');
      tip.textContent = when(new Date(b.t * 1000).toISOString()) + ' ' + part.label + ': ' + part.v;
      bar.append(tip);
      f.node.append(bar);
      base += part.v;
    }
  }
  return chartBox(opts.title, opts.summary, f.node);
}

/** The width a chart gets in a container that may lay charts out in columns. */
function chartWidth(id) {
  const box = $(id);
  const columns = getComputedStyle(box).gridTemplateColumns;
  const n = columns && columns !== 'none' ? columns.split(' ').filter(Boolean).length : 1;
  const width = Math.floor((box.clientWidth - (n - 1) * 12) / n);
  return width > 120 ? width : 300;
}

/** '30 s', '3 min', '1.5 h': a bucket's width in words (rounded: buckets are not round widths). */
function span(seconds) {
  const round = (v) => String(Number(v.toFixed(v < 10 ? 1 : 0)));
  if (seconds < 90) return seconds + ' s';
  if (seconds < 5400) return round(seconds / 60) + ' min';
  if (seconds < 172800) return round(seconds / 3600) + ' h';
  return round(seconds / 86400) + ' d';
}
