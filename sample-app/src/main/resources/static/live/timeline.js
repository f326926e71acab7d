// The live page's timeline: polls the shardtenancy endpoint's series (GET /actuator/shardtenancy/timeline/{seconds})
// every TIMELINE_POLL_MS and draws it as plain SVG: one chart of every transaction, one per tenant being moved, each
// with committed transactions, retries and fence rejections per second and the freeze windows shaded.
'use strict';

(() => {
  const SECONDS = 120;
  const TIMELINE_POLL_MS = 1000;
  const TENANT_CHARTS = 3;
  const WIDTH = 1000;
  const PAD = { left: 44, right: 8, top: 8, bottom: 18 };
  const SERIES = [
    { key: 'committedPerSecond', cls: 'committed', label: 'committed' },
    { key: 'fenceRejectionsPerSecond', cls: 'rejections', label: 'fence rejections' },
    // drawn last, dashed: every rejection is usually retried, so this line often lies on the rejections' one
    { key: 'retriesPerSecond', cls: 'retries', label: 'retries' },
  ];
  const SVG_NS = 'http://www.w3.org/2000/svg';

  const timelines = document.getElementById('timelines');
  const status = document.getElementById('timeline-status');

  function svg(name, attributes, text) {
    const element = document.createElementNS(SVG_NS, name);
    Object.entries(attributes).forEach(([k, v]) => element.setAttribute(k, String(v)));
    if (text != null) {
      element.textContent = text;
    }
    return element;
  }

  // Counts per second span from 0 to thousands: a logarithmic scale keeps a few retries visible next to many commits.
  function scale(value) {
    return Math.log10(1 + value);
  }

  function chart(id, title, subtitle, seconds, from, to, freezes, height) {
    const box = document.createElement('div');
    box.className = 'chart';
    const heading = document.createElement('h3');
    heading.textContent = title + ' ';
    const small = document.createElement('small');
    small.textContent = subtitle;
    heading.appendChild(small);
    box.appendChild(heading);

    const plotWidth = WIDTH - PAD.left - PAD.right;
    const plotHeight = height - PAD.top - PAD.bottom;
    const span = to + 1 - from;
    const xOfMilli = (ms) => PAD.left + Math.max(0, Math.min(1, (ms / 1000 - from) / span)) * plotWidth;
    const xOfSecond = (s) => PAD.left + ((s + 0.5 - from) / span) * plotWidth;
    const peak = Math.max(1, ...seconds.flatMap((s) => SERIES.map((series) => s[series.key])));
    const top = Math.max(1, Math.ceil(Math.log10(peak + 1)));
    const yOf = (v) => PAD.top + plotHeight - (scale(v) / top) * plotHeight;

    const root = svg('svg', {
      class: 'timeline', viewBox: `0 0 ${WIDTH} ${height}`, 'data-series': id,
      'data-from-epoch-second': from, 'data-to-epoch-second': to, role: 'img',
      'aria-label': `${title}: ${SERIES.map((s) => s.label).join(', ')} per second`,
    });
    for (let power = 0; power <= top; power++) {
      const value = power === 0 ? 0 : 10 ** power - 1;
      const y = yOf(value);
      root.appendChild(svg('line', { class: 'grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y }));
      root.appendChild(svg('text', { class: 'axis', x: PAD.left - 4, y: y + 3, 'text-anchor': 'end' },
        power === 0 ? '0' : String(10 ** power)));
    }
    for (let ago = 0; ago < span; ago += 30) {
      const x = xOfSecond(to - ago);
      root.appendChild(svg('text', { class: 'axis', x, y: height - 4, 'text-anchor': 'middle' },
        ago === 0 ? 'now' : `-${ago} s`));
    }
    freezes.forEach((f) => {
      const open = f.endedAtEpochMilli == null;
      const end = open ? Date.now() : f.endedAtEpochMilli;
      const x1 = xOfMilli(f.frozenAtEpochMilli);
      const x2 = Math.max(x1 + 2, xOfMilli(end));
      const band = svg('rect', {
        class: open ? 'freeze open' : 'freeze', x: x1, y: PAD.top, width: x2 - x1, height: plotHeight,
        'data-tenant': f.tenant, 'data-move': f.moveId, 'data-frozen-at': f.frozenAtEpochMilli,
        'data-ended-at': open ? '' : f.endedAtEpochMilli, 'data-ended-by': f.endedBy ?? '',
      });
      const ms = end - f.frozenAtEpochMilli;
      band.appendChild(svg('title', {}, `${f.tenant} frozen on ${f.sourceShard} for ${ms} ms`
        + (open ? ' so far' : `, then ${f.endedBy}`) + ` (move to ${f.targetShard})`));
      root.appendChild(band);
      const nearRightEdge = x1 > WIDTH - PAD.right - 140;
      root.appendChild(svg('text', {
        class: 'freeze-label', x: nearRightEdge ? x1 - 3 : x2 + 3, y: PAD.top + 10,
        'text-anchor': nearRightEdge ? 'end' : 'start',
      }, `${f.tenant} frozen ${ms} ms`));
    });
    SERIES.forEach((series) => {
      const points = seconds.map((s) => `${xOfSecond(s.epochSecond).toFixed(1)},${yOf(s[series.key]).toFixed(1)}`);
      const total = seconds.reduce((sum, s) => sum + s[series.key], 0);
      const max = seconds.reduce((m, s) => Math.max(m, s[series.key]), 0);
      const line = svg('polyline', {
        class: `line ${series.cls}`, points: points.join(' '), 'data-sum': total, 'data-max': max,
      });
      line.appendChild(svg('title', {}, `${series.label}: ${total} in ${span} s, at most ${max} per second`));
      root.appendChild(line);
    });
    box.appendChild(root);
    return box;
  }

  function render(timeline) {
    const from = timeline.fromEpochSecond;
    const to = timeline.toEpochSecond;
    const charts = [chart('total', 'All transactions', `${timeline.tenants.length} tenant(s) moved in the period`,
      timeline.total, from, to, timeline.freezes, 200)];
    timeline.tenants.slice(-TENANT_CHARTS).reverse().forEach((t) => {
      charts.push(chart(t.tenant, t.tenant, `${t.sourceShard} \u2192 ${t.targetShard}, ${t.step}`, t.seconds, from, to,
        timeline.freezes.filter((f) => f.tenant === t.tenant), 130));
    });
    timelines.replaceChildren(...charts);
    document.getElementById('timeline-seconds').textContent = String(to + 1 - from);
  }

  async function poll() {
    try {
      const response = await fetch(`../actuator/shardtenancy/timeline/${SECONDS}`, { cache: 'no-store' });
      if (!response.ok) {
        throw new Error(`HTTP ${response.status}`);
      }
      render(await response.json());
      status.textContent = '';
      status.className = '';
      timelines.dataset.polls = String(Number(timelines.dataset.polls) + 1);
    }
    catch (e) {
      status.textContent = 'cannot read the timeline: ' + e.message;
      status.className = 'error';
    }
    finally {
      setTimeout(poll, TIMELINE_POLL_MS);
    }
  }

  poll();
})();
