/**
 * A small line chart of one metric's measured values over time, as SVG built with DOM calls
 * (createElementNS, setAttribute, textContent): no markup is parsed, so a value from the cluster
 * can only ever be text. Points are coloured by their measurement's phase.
 */
import { runIcon } from './format';
import type { RolloutView } from './protocol';

type MetricView = RolloutView['analysisRuns'][number]['metrics'][number];
type MeasurementView = MetricView['measurements'][number];

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 280;
const HEIGHT = 72;
/** Room for the value labels on the left and the time labels below. */
const PAD = { left: 40, right: 8, top: 8, bottom: 16 };

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** "2026-03-02T10:00:45Z" -> "10:00:45" (the cluster's times are UTC); anything else as given. */
export function timeOfDay(iso: string | undefined): string {
  if (!iso) return '';
  return /T(\d\d:\d\d:\d\d)/.exec(iso)?.[1] ?? iso;
}

/** 0.9712 -> "0.971", 1234.5 -> "1234.5", 3 -> "3": short enough for an axis. */
export function shortNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const abs = Math.abs(n);
  return String(Number(n.toPrecision(abs >= 1000 ? 6 : 3)));
}

interface Point {
  m: MeasurementView;
  value: number;
  time?: number;
}

/** The chart, or null when fewer than one measurement has a numeric value. */
export function metricChart(metric: MetricView): SVGSVGElement | null {
  const points: Point[] = metric.measurements.flatMap((m) => {
    if (m.numeric === undefined || !Number.isFinite(m.numeric)) return [];
    const t = Date.parse(m.finishedAt ?? m.startedAt ?? '');
    return [{ m, value: m.numeric, ...(Number.isFinite(t) ? { time: t } : {}) }];
  });
  if (points.length === 0) return null;

  let lo = Math.min(...points.map((p) => p.value));
  let hi = Math.max(...points.map((p) => p.value));
  if (lo === hi) {
    // A flat line sits in the middle of a band around its value.
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  // Times place the points when every point has one and they differ; otherwise the order does.
  const byTime = points.every((p) => p.time !== undefined) && new Set(points.map((p) => p.time)).size > 1;
  const t0 = byTime ? Math.min(...points.map((p) => p.time!)) : 0;
  const t1 = byTime ? Math.max(...points.map((p) => p.time!)) : Math.max(1, points.length - 1);
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (p: Point, i: number) => PAD.left + (points.length === 1 ? innerW / 2 : (((byTime ? p.time! : i) - t0) / (t1 - t0)) * innerW);
  const y = (v: number) => PAD.top + (1 - (v - lo) / (hi - lo)) * innerH;

  const label = `${metric.name}: ${points.length} measured value${points.length === 1 ? '' : 's'}, from ${shortNumber(Math.min(...points.map((p) => p.value)))} to ${shortNumber(Math.max(...points.map((p) => p.value)))}`;
  const chart = svg('svg', {
    class: 'metric-chart',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    width: WIDTH,
    height: HEIGHT,
    role: 'img',
    'aria-label': label,
  });
  chart.dataset['metric'] = metric.name;
  chart.appendChild(svg('title', {}, label));
  // Axes: the value range on the left, the first and last time below.
  chart.appendChild(svg('line', { class: 'chart-axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: PAD.top + innerH }));
  chart.appendChild(svg('line', { class: 'chart-axis', x1: PAD.left, y1: PAD.top + innerH, x2: PAD.left + innerW, y2: PAD.top + innerH }));
  chart.appendChild(
    svg('text', { class: 'chart-label chart-max', x: PAD.left - 4, y: PAD.top + 4, 'text-anchor': 'end' }, shortNumber(hi)),
  );
  chart.appendChild(
    svg('text', { class: 'chart-label chart-min', x: PAD.left - 4, y: PAD.top + innerH, 'text-anchor': 'end' }, shortNumber(lo)),
  );
  const first = points[0]!;
  const last = points[points.length - 1]!;
  chart.appendChild(
    svg(
      'text',
      { class: 'chart-label chart-start', x: PAD.left, y: HEIGHT - 3, 'text-anchor': 'start' },
      timeOfDay(first.m.finishedAt ?? first.m.startedAt) || '1',
    ),
  );
  if (points.length > 1)
    chart.appendChild(
      svg(
        'text',
        { class: 'chart-label chart-end', x: PAD.left + innerW, y: HEIGHT - 3, 'text-anchor': 'end' },
        timeOfDay(last.m.finishedAt ?? last.m.startedAt) || String(points.length),
      ),
    );

  if (points.length > 1) {
    chart.appendChild(
      svg('polyline', {
        class: 'chart-line',
        fill: 'none',
        points: points.map((p, i) => `${x(p, i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' '),
      }),
    );
  }
  points.forEach((p, i) => {
    const cls = runIcon(p.m.phase).cls;
    const title = [shortNumber(p.value), p.m.phase, timeOfDay(p.m.finishedAt ?? p.m.startedAt)].filter(Boolean).join(' · ');
    chart.appendChild(
      svg(
        'circle',
        { class: `chart-point ${cls}`, cx: x(p, i).toFixed(1), cy: y(p.value).toFixed(1), r: 3, 'data-phase': p.m.phase },
        svg('title', {}, title),
      ),
    );
  });
  return chart;
}
