// The console script, part 2: the charts, SVG drawn with createElementNS.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.

// biome-ignore lint/complexity/noUselessStringRaw: browser code kept verbatim (a later \n must stay a backslash-n)
export const SCRIPT_CHARTS = String.raw`
function sparkline(title, values, labels, w) {
  const h = 90, pad = 4;
  const box = el('div', {}, el('div', { className: 'chart-title', text: title }));
  const chart = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img', 'aria-label': title });
  const min = Math.min(...values), max = Math.max(...values);
  const span = max - min || 1;
  const x = (i) => pad + (values.length < 2 ? 0 : (i * (w - 2 * pad)) / (values.length - 1));
  const y = (v) => h - 16 - ((v - min) / span) * (h - 32);
  chart.append(svg('line', { x1: 0, x2: w, y1: h - 16, y2: h - 16, class: 'axis' }));
  const points = values.map((v, i) => x(i).toFixed(1) + ',' + y(v).toFixed(1)).join(' ');
  chart.append(svg('polyline', { points: values.length < 2 ? x(0) + ',' + y(values[0] || 0) + ' ' + (w - pad) + ',' + y(values[0] || 0) : points, class: 'line' }));
  const top = svg('text', { x: pad, y: 10 }); top.textContent = labels.max;
  const bottom = svg('text', { x: pad, y: h - 4 }); bottom.textContent = labels.min;
  chart.append(top, bottom);
  box.append(chart);
  return box;
}

function stackedBars(points, w) {
  const h = 140, pad = 4;
  const chart = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img', 'aria-label': 'tickets created per interval, by status' });
  const totals = points.map((p) => STATUSES.reduce((s, k) => s + p.counts[k], 0));
  const max = Math.max(1, ...totals);
  const slot = (w - 2 * pad) / Math.max(1, points.length);
  chart.append(svg('line', { x1: 0, x2: w, y1: h - 16, y2: h - 16, class: 'axis' }));
  points.forEach((p, i) => {
    let base = h - 16;
    for (const status of STATUSES) {
      const n = p.counts[status];
      if (n === 0) continue;
      const height = (n / max) * (h - 32);
      base -= height;
      const barWidth = Math.min(24, Math.max(1, slot - 2));
      const bar = svg('rect', { x: (pad + i * slot + (slot - barWidth) / 2).toFixed(1), y: base.toFixed(1), width: barWidth.toFixed(1), height: height.toFixed(1), class: 'bar s-' + status });
      const tip = svg('title'); tip.textContent = status + ': ' + n;
      bar.append(tip);
      chart.append(bar);
    }
  });
  const top = svg('text', { x: pad, y: 10 }); top.textContent = 'max ' + max;
  const start = svg('text', { x: pad, y: h - 4 });
  start.textContent = points.length ? when(new Date(points[0].at * 1000).toISOString()) : '';
  const end = svg('text', { x: w - pad, y: h - 4, 'text-anchor': 'end' });
  end.textContent = points.length ? when(new Date(points[points.length - 1].at * 1000).toISOString()) : '';
  chart.append(top, start, end);
  return chart;
}
`;
