/**
 * A hand-written SVG line chart with logarithmic axes, no dependencies: resume cost against transcript size for
 * Handback, the floor and the peers.
 */

export interface Series {
  name: string;
  color: string;
  /** [x, y] points; non-finite or non-positive values are skipped. */
  points: Array<[number, number]>;
  dashed?: boolean;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function decades(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) out.push(10 ** e);
  return out;
}

function label(value: number, unit: string): string {
  if (unit === 'µs') {
    if (value >= 1_000_000) return `${value / 1_000_000} s`;
    if (value >= 1000) return `${value / 1000} ms`;
    return `${value} µs`;
  }
  return value >= 1000 ? `${value / 1000}k` : String(value);
}

/** A log–log line chart as an SVG document. */
export function lineChart(options: {
  title: string;
  xLabel: string;
  yLabel: string;
  yUnit: 'µs';
  series: Series[];
  width?: number;
  height?: number;
}): string {
  const width = options.width ?? 820;
  const height = options.height ?? 500;
  const margin = { left: 80, right: 250, top: 46, bottom: 56 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const points = options.series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && y > 0 && Number.isFinite(y));
  if (points.length === 0) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="80"><text x="10" y="40" font-family="sans-serif">${escapeXml(options.title)}: no data yet</text></svg>\n`;
  }
  const xs = decades(Math.min(...points.map((p) => p[0])), Math.max(...points.map((p) => p[0])));
  const ys = decades(Math.min(...points.map((p) => p[1])), Math.max(...points.map((p) => p[1])));
  const [x0, x1] = [Math.log10(xs[0] as number), Math.log10(xs.at(-1) as number)];
  const [y0, y1] = [Math.log10(ys[0] as number), Math.log10(ys.at(-1) as number)];
  const px = (x: number) => margin.left + ((Math.log10(x) - x0) / Math.max(1e-9, x1 - x0)) * plotW;
  const py = (y: number) => margin.top + plotH - ((Math.log10(y) - y0) / Math.max(1e-9, y1 - y0)) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="24" font-size="16" font-weight="bold">${escapeXml(options.title)}</text>`,
  );
  for (const x of xs) {
    out.push(
      `<line x1="${px(x).toFixed(1)}" y1="${margin.top}" x2="${px(x).toFixed(1)}" y2="${margin.top + plotH}" stroke="#e3e3e3"/>`,
      `<text x="${px(x).toFixed(1)}" y="${margin.top + plotH + 18}" text-anchor="middle">${label(x, '')}</text>`,
    );
  }
  for (const y of ys) {
    out.push(
      `<line x1="${margin.left}" y1="${py(y).toFixed(1)}" x2="${margin.left + plotW}" y2="${py(y).toFixed(1)}" stroke="#e3e3e3"/>`,
      `<text x="${margin.left - 8}" y="${(py(y) + 4).toFixed(1)}" text-anchor="end">${label(y, options.yUnit)}</text>`,
    );
  }
  out.push(
    `<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 14}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  options.series.forEach((s, i) => {
    const valid = s.points.filter(([x, y]) => x > 0 && y > 0 && Number.isFinite(y));
    if (valid.length > 0) {
      const path = valid.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
      out.push(
        `<polyline points="${path}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
        ...valid.map(
          ([x, y]) => `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${s.color}"/>`,
        ),
      );
    }
    const ly = margin.top + 10 + i * 22;
    const lx = margin.left + plotW + 16;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<text x="${lx + 32}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
