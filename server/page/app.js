// app.js — toidd's page: decode pasted IDs (/v1/inspect), draw each one's
// bit layout (/v1/layout/FORMAT, from the library's toid_layout), generate
// IDs (/v1/new), and chart the IDs served per second (/metrics).
// No eval, no inline script or style (the page's Content-Security-Policy
// forbids them), no third-party code; talks to this server only.
//
// The URL's fragment can start work when the page loads (the tests use it):
//   #decode=ID,ID,...   decode these   (&format=NAME: as that format; an
//                       entry FORMAT/ID: that one as FORMAT)
//   #new=FORMAT:COUNT   generate COUNT IDs of FORMAT and decode them
// When that work is done, <body data-ready="1">.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);

  // ---- small DOM helpers -------------------------------------------------
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === 'class') e.className = v;
      else e.setAttribute(k, String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    return e;
  }

  async function getJSON(url) {
    const r = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    return { ok: r.ok, status: r.status, body };
  }

  // ---- formats and layouts -------------------------------------------------
  let formats = [];                 // from /v1/formats
  const layouts = new Map();        // format name -> Promise of its layout

  function layoutOf(name) {
    if (!layouts.has(name)) {
      layouts.set(name, getJSON('/v1/layout/' + encodeURIComponent(name)).then((r) => {
        if (!r.ok || !r.body) throw new Error('no layout for ' + name);
        return r.body;
      }));
    }
    return layouts.get(name);
  }

  // The colour class of each layout field: fixed bits grey, the others the
  // palette in order (the time first), as toid inspect --layout does.
  function colourClasses(fields) {
    let k = 0;
    return fields.map((f) => (f.kind === 'fixed' ? 'fixed' : 'c' + (k++ % 6)));
  }

  // ---- times -------------------------------------------------------------------
  const pad = (n, w) => String(n).padStart(w || 2, '0');
  function localTime(ms) {
    const d = new Date(ms);
    if (Number.isNaN(d.getTime())) return '(outside what this browser can show)';
    const off = -d.getTimezoneOffset(), a = Math.abs(off);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' +
      pad(d.getMilliseconds(), 3) + ' ' + (off >= 0 ? '+' : '-') + pad(Math.floor(a / 60)) + ':' + pad(a % 60);
  }
  function zoneName() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { return ''; }
  }

  // ---- one decoded ID ------------------------------------------------------------
  function bitString(hex) {
    let s = '';
    for (const h of hex) s += parseInt(h, 16).toString(2).padStart(4, '0');
    return s;
  }

  // The value of a layout field: the inspection's own where it has the
  // field, else the bits as an unsigned integer.
  function fieldValue(info, f, bits) {
    if (f.described && info[f.name] !== undefined) return String(info[f.name]);
    return BigInt('0b' + bits.slice(f.bit_offset, f.bit_offset + f.bit_width)).toString();
  }

  function drawLayout(info, layout) {
    const fields = layout.fields, cls = colourClasses(fields);
    const total = layout.bin_size * 8, bits = bitString(info.hex);
    const box = el('div', { class: 'layout' });

    // the canonical text, each field's characters underlined in its colour
    const text = el('div', { class: 'text-spans' });
    const owner = new Array(info.text.length).fill(-1);
    fields.forEach((f, i) => {
      if (f.char_start === null) return;
      for (let c = f.char_start; c < f.char_start + f.char_len; c++) owner[c] = i;
    });
    for (let c = 0; c < info.text.length;) {
      let e = c;
      while (e < info.text.length && owner[e] === owner[c]) e++;
      const i = owner[c];
      text.append(i >= 0
        ? el('span', { class: cls[i], 'data-field': fields[i].name, title: fields[i].name }, info.text.slice(c, e))
        : el('span', { class: 'none' }, info.text.slice(c, e)));
      c = e;
    }
    box.append(text);
    if (fields.every((f) => f.char_start === null))
      box.append(el('p', { class: 'note' }, layout.alphabet + ': every character depends on the whole value'));

    // 32 bits a row, the field names over their bits, as the specs draw it
    const table = el('table', { class: 'bits', 'data-bits': total });
    const head = el('tr');
    for (let b = 0; b < 32; b++) head.append(el('th', {}, String(b % 10)));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    for (let row = 0; row < total / 32; row++) {
      const lo = row * 32, hi = lo + 32;
      const labels = el('tr', { class: 'label' }), values = el('tr', { class: 'value' });
      fields.forEach((f, i) => {
        const a = Math.max(lo, f.bit_offset), z = Math.min(hi, f.bit_offset + f.bit_width);
        if (a >= z) return;
        labels.append(el('td', { colspan: z - a, class: cls[i], title: f.name }, f.name));
        for (let b = a; b < z; b++)
          values.append(el('td', { class: cls[i] + ' bit', 'data-bit': b }, bits[b]));
      });
      body.append(labels, values);
    }
    table.append(body);
    box.append(table);

    // the legend: bits, characters and value of each field
    const legend = el('table', { class: 'legend' },
      el('tr', {}, el('th', {}, 'field'), el('th', {}, 'bits'), el('th', {}, 'chars'), el('th', {}, 'value')));
    fields.forEach((f, i) => {
      const chars = f.char_start === null ? '–' : f.char_start + '..' + (f.char_start + f.char_len - 1);
      let value = fieldValue(info, f, bits);
      if (f.kind === 'fixed') value += ' (fixed)';
      if (f.kind === 'time') value += ' (' + info.time + ')';
      legend.append(el('tr', { 'data-field': f.name },
        el('td', { class: cls[i] }, el('span', { class: 'swatch' }), f.name),
        el('td', {}, f.bit_offset + '..' + (f.bit_offset + f.bit_width - 1)),
        el('td', {}, chars),
        el('td', { class: 'value' }, value)));
    });
    box.append(legend);
    return box;
  }

  function card(input, info, layout) {
    const c = el('article', { class: 'card', 'data-format': info.format, 'data-text': info.text,
      'data-input': input, 'data-unix-ms': info.unix_ms },
    el('h3', {}, el('span', { class: 'fmt' }, info.format), el('code', { class: 'idtext' }, info.text)));
    if (Array.isArray(info.also) && info.also.length)
      c.append(el('p', { class: 'note' }, 'Also a valid ' + info.also.join(', ') + '; read as ' + info.format + '.'));
    const zone = zoneName();
    c.append(el('dl', { class: 'times' },
      el('dt', {}, 'UTC'), el('dd', { 'data-time': 'utc' }, info.time),
      el('dt', {}, 'Local' + (zone ? ' (' + zone + ')' : '')), el('dd', { 'data-time': 'local' }, localTime(Number(info.unix_ms)))));
    const t = el('table', { class: 'fields' });
    for (const [k, v] of Object.entries(info)) {
      if (k === 'format' || k === 'also' || typeof v === 'object') continue;
      t.append(el('tr', { 'data-field': k }, el('th', {}, k), el('td', {}, String(v))));
    }
    c.append(t);
    if (layout) c.append(drawLayout(info, layout));
    return c;
  }

  function errorCard(input, r) {
    const b = r.body || {};
    let msg = b.message || ('HTTP ' + r.status);
    if (typeof b.position === 'number') msg += ' at position ' + b.position;
    if (b.error) msg += ' (' + b.error + ')';
    return el('article', { class: 'card error', 'data-input': input, 'data-error': b.error || r.status },
      el('h3', {}, el('code', {}, input)), el('p', { class: 'error-msg' }, msg));
  }

  // An input may name its format as the API's paths do: FORMAT/ID (no ID
  // alphabet has a '/').
  async function decodeOne(input, format) {
    const slash = input.indexOf('/');
    if (slash > 0 && formats.some((f) => f.name === input.slice(0, slash))) {
      format = input.slice(0, slash);
      input = input.slice(slash + 1);
    }
    if (input.includes('/') || input.length > 200)
      return errorCard(input, { status: 400, body: { error: 'invalid', message: 'not an ID of any format' } });
    const path = '/v1/inspect/' + (format ? encodeURIComponent(format) + '/' : '') + encodeURIComponent(input);
    const r = await getJSON(path);
    if (!r.ok || !r.body || !r.body.format) return errorCard(input, r);
    let layout = null;
    try { layout = await layoutOf(r.body.format); } catch (e) { layout = null; }
    return card(input, r.body, layout);
  }

  async function decodeAll(inputs, format) {
    const out = $('results');
    const cards = await Promise.all(inputs.map((s) => decodeOne(s, format).catch((e) =>
      errorCard(s, { status: 0, body: { message: String(e) } }))));
    // the newest batch on top, in the order the IDs were given
    const batch = document.createDocumentFragment();
    batch.append(...cards);
    out.prepend(batch);
  }

  function splitIds(s) { return s.split(/[\s,]+/).filter((x) => x.length > 0); }

  // ---- generating ---------------------------------------------------------------
  async function generate(format, count) {
    const r = await getJSON('/v1/new/' + encodeURIComponent(format) + '?count=' + count);
    const list = $('new-output');
    list.textContent = '';
    if (!r.ok || !Array.isArray(r.body)) {
      list.append(el('li', { class: 'error-msg' }, (r.body && r.body.message) || ('HTTP ' + r.status)));
      return;
    }
    for (const id of r.body) list.append(el('li', { 'data-format': format }, id));
    await decodeAll(r.body, format);
  }

  // ---- the chart ----------------------------------------------------------------
  const WINDOW = 60, W = 640, H = 220, L = 48, R = 10, T = 10, B = 24;
  const samples = [];               // {t, counts: {format: total}}

  function parseMetrics(text) {
    const counts = {};
    const re = /^toidd_ids_issued_total\{format="([^"]+)"\} (\d+)$/gm;
    let m;
    while ((m = re.exec(text)) !== null) counts[m[1]] = Number(m[2]);
    return counts;
  }

  function drawChart() {
    const chart = $('chart'), legend = $('chart-legend');
    chart.textContent = '';
    const names = formats.map((f) => f.name);
    const rates = {};
    let max = 1;
    for (const n of names) {
      rates[n] = [];
      for (let i = 1; i < samples.length; i++) {
        const dt = (samples[i].t - samples[i - 1].t) / 1000;
        const d = (samples[i].counts[n] || 0) - (samples[i - 1].counts[n] || 0);
        const v = dt > 0 && d > 0 ? d / dt : 0;
        rates[n].push(v);
        if (v > max) max = v;
      }
    }
    const x = (i, len) => L + (W - L - R) * (WINDOW - 1 - (len - 1 - i)) / (WINDOW - 1);
    const y = (v) => T + (H - T - B) * (1 - v / max);
    for (let g = 0; g <= 4; g++) {
      const v = max * g / 4;
      chart.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      const label = svg('text', { x: L - 4, y: y(v) + 4, 'text-anchor': 'end' });
      label.textContent = v >= 100 ? Math.round(v).toString() : v.toFixed(v ? 1 : 0);
      chart.append(label);
    }
    chart.append(svg('line', { class: 'axis', x1: L, x2: L, y1: T, y2: H - B }));
    chart.append(svg('line', { class: 'axis', x1: L, x2: W - R, y1: H - B, y2: H - B }));
    const xl = svg('text', { x: W - R, y: H - 6, 'text-anchor': 'end' });
    xl.textContent = 'last ' + WINDOW + ' s';
    chart.append(xl);
    legend.textContent = '';
    const last = samples.length ? samples[samples.length - 1].counts : {};
    names.forEach((n, k) => {
      const rs = rates[n];
      const pts = rs.map((v, i) => x(i, rs.length).toFixed(1) + ',' + y(v).toFixed(1)).join(' ');
      chart.append(svg('polyline', { class: 'k' + k, 'data-format': n, points: pts }));
      const now = rs.length ? rs[rs.length - 1] : 0;
      legend.append(el('li', { class: 'k' + k, 'data-format': n, 'data-total': last[n] || 0 },
        el('span', { class: 'swatch' }), n + ' ',
        el('span', { class: 'rate' }, (now >= 100 ? Math.round(now) : now.toFixed(1)) + '/s'),
        el('span', { class: 'total' }, ' · ' + (last[n] || 0) + ' in all')));
    });
  }

  async function sample() {
    try {
      const r = await fetch('/metrics', { cache: 'no-store' });
      if (!r.ok) return;
      samples.push({ t: performance.now(), counts: parseMetrics(await r.text()) });
      while (samples.length > WINDOW + 1) samples.shift();
      drawChart();
    } catch (e) { /* the server is away: try again next second */ }
  }

  // ---- wiring ------------------------------------------------------------------
  function fillFormats() {
    const dsel = $('decode-format'), nsel = $('new-format');
    for (const f of formats) {
      dsel.append(el('option', { value: f.name }, f.name));
      if (f.generate) nsel.append(el('option', { value: f.name }, f.name));
    }
  }

  async function start() {
    const r = await getJSON('/v1/formats');
    formats = r.ok && Array.isArray(r.body) ? r.body : [];
    fillFormats();
    $('decode-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      decodeAll(splitIds($('ids').value), $('decode-format').value);
    });
    $('clear').addEventListener('click', () => { $('results').textContent = ''; $('ids').value = ''; });
    $('new-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const n = Math.max(1, Math.min(100, Number($('new-count').value) || 1));
      generate($('new-format').value, n);
    });
    const work = [sample()];
    setInterval(sample, 1000);
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get('decode')) {
      const ids = splitIds(params.get('decode'));
      $('ids').value = ids.join('\n');
      if (params.get('format')) $('decode-format').value = params.get('format');
      work.push(decodeAll(ids, params.get('format') || ''));
    }
    const nw = /^([a-z0-9-]+):(\d{1,3})$/.exec(params.get('new') || '');
    if (nw) {
      $('new-format').value = nw[1];
      $('new-count').value = nw[2];
      work.push(generate(nw[1], Number(nw[2])));
    }
    await Promise.all(work);
    document.body.setAttribute('data-ready', '1');
  }

  document.addEventListener('DOMContentLoaded', () => {
    start().catch((e) => {
      $('results').append(el('p', { class: 'error-msg' }, 'This page could not start: ' + e));
      document.body.setAttribute('data-ready', 'error');
    });
  });
})();
