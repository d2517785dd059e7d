// app.js — toidd's page: decode pasted IDs (/v1/inspect), draw each one's
// bit layout (/v1/layout/FORMAT, from the library's toid_layout), generate
// IDs (/v1/new) into a list to copy, turn a time into the IDs that bound it
// (/v1/range) with the SQL for them, write a ULID as a UUID and back
// (/v1/convert), and chart the IDs served per second (/metrics).
// No eval, no inline script or style (the page's Content-Security-Policy
// forbids them), no third-party code; talks to this server only.
//
// The URL's fragment can start work when the page loads (the tests use it):
//   #decode=ID,ID,...   decode these   (&format=NAME: as that format; an
//                       entry FORMAT/ID: that one as FORMAT)
//   #new=FORMAT:COUNT   generate COUNT IDs of FORMAT into the list;
//                       &pick=N then presses the Decode button of the Nth,
//                       &copy=N its Copy button (&copy=all: Copy all)
//   #range=FORMAT&from=TIME&to=TIME   fill in and submit Time -> range
//                       (to optional; a '+' in a time is %2B here)
//   #convert=ID         fill in and submit ULID <-> UUID
// When that work is done, <body data-ready="1">. <body data-scheme> is
// "dark" or "light" (prefers-color-scheme), data-bg the page's colour.
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

  // ---- copying -------------------------------------------------------------------
  // Selects what node shows (an input's value, or the text of an element).
  function selectNode(node) {
    if (node.select) { node.focus(); node.select(); return; }
    const range = document.createRange();
    range.selectNodeContents(node);
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  // Copies text to the clipboard; where the clipboard API is not there (an
  // http page on another host than localhost is not a secure context) or
  // refuses, selects node instead, for Ctrl+C. Says which in status.
  async function copyText(text, node, status) {
    let said = 'copied';
    try {
      if (!navigator.clipboard || !navigator.clipboard.writeText) throw new Error('no clipboard API');
      await Promise.race([navigator.clipboard.writeText(text),
        new Promise((resolve, reject) => setTimeout(() => reject(new Error('no answer')), 2000))]);
    } catch (e) {
      selectNode(node);
      let done = false;
      try { done = document.execCommand('copy'); } catch (e2) { done = false; }
      said = done ? 'copied' : 'selected: press Ctrl+C to copy';
    }
    status.textContent = said;
    status.setAttribute('data-said', said.startsWith('copied') ? 'copied' : 'selected');
    clearTimeout(status.toidTimer);
    status.toidTimer = setTimeout(() => { status.textContent = ''; }, 4000);
    return said;
  }
  // A Copy button for what node shows, with its status beside it.
  function copyButton(node, label) {
    const status = el('span', { class: 'copy-status', role: 'status' });
    const b = el('button', { type: 'button', class: 'copy', 'aria-label': label || 'Copy' }, 'Copy');
    b.addEventListener('click', () => { b.toidWork = copyText(node.textContent, node, status); });
    return [b, status];
  }

  // ---- ages ------------------------------------------------------------------------
  // "3 minutes ago", "in 2 hours": the time against this browser's clock, in
  // the largest unit that is at least one (toward zero: 3 min 50 s is 3 minutes).
  const rtf = typeof Intl === 'object' && Intl.RelativeTimeFormat
    ? new Intl.RelativeTimeFormat(undefined, { numeric: 'always' }) : null;
  const DAY = 864e5;
  const UNITS = [['year', 365.2425 * DAY], ['month', 30.436875 * DAY], ['week', 7 * DAY],
    ['day', DAY], ['hour', 36e5], ['minute', 6e4], ['second', 1e3]];
  function relAge(ms, now) {
    const d = ms - now;
    if (!Number.isFinite(d)) return '';
    for (const [unit, len] of UNITS) {
      if (Math.abs(d) < len && unit !== 'second') continue;
      const v = Math.trunc(d / len);
      if (rtf) return rtf.format(d < 0 && v === 0 ? -0 : v, unit);
      const n = Math.abs(v) + ' ' + unit + (Math.abs(v) === 1 ? '' : 's');
      return d < 0 ? n + ' ago' : 'in ' + n;
    }
    return '';
  }
  function refreshAges() {
    const now = Date.now();
    for (const a of document.querySelectorAll('[data-age-ms]'))
      a.textContent = relAge(Number(a.getAttribute('data-age-ms')), now);
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
    // the picture folds away: closed until asked for
    box.append(el('details', { class: 'bits-detail' }, el('summary', {}, 'Bits'), table, legend));
    return box;
  }

  function card(input, info, layout) {
    const c = el('article', { class: 'card', 'data-format': info.format, 'data-text': info.text,
      'data-input': input, 'data-unix-ms': info.unix_ms, tabindex: -1 },
    el('h3', {}, el('span', { class: 'fmt' }, info.format), el('code', { class: 'idtext' }, info.text)));
    if (Array.isArray(info.also) && info.also.length)
      c.append(el('p', { class: 'note' }, 'Also a valid ' + info.also.join(', ') + '; read as ' + info.format + '.'));
    const zone = zoneName();
    if (info.unix_ms === undefined) {
      // a UUID of a version without a time (3, 4, 5, 8), or nil, max
      c.append(el('p', { class: 'note', 'data-time': 'none' },
        'No time: a UUID of ' + (info.variant === 'rfc9562' ? 'version ' + info.version : 'the ' + info.variant + ' variant') +
        ' holds none (versions 1, 6 and 7 do).'));
    } else {
      c.append(el('dl', { class: 'times' },
        el('dt', {}, 'UTC'), el('dd', { 'data-time': 'utc' }, info.time === undefined ? '(before 1970)' : info.time),
        el('dt', {}, 'Local' + (zone ? ' (' + zone + ')' : '')), el('dd', { 'data-time': 'local' }, localTime(Number(info.unix_ms))),
        el('dt', {}, 'Age'), el('dd', { 'data-time': 'age', class: 'age', 'data-age-ms': info.unix_ms },
          relAge(Number(info.unix_ms), Date.now()))));
    }
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
    // (a UUID of another version than 7 is no format: no layout to draw)
    if (r.body.format !== 'uuid')
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
    return cards;
  }

  function splitIds(s) { return s.split(/[\s,]+/).filter((x) => x.length > 0); }

  // ---- generating ---------------------------------------------------------------
  // The new IDs as a list, each with Copy and Decode; Copy all above it.
  let newIds = [];
  async function generate(format, count) {
    const r = await getJSON('/v1/new/' + encodeURIComponent(format) + '?count=' + count);
    const list = $('new-output'), err = $('new-error');
    list.textContent = '';
    if (!r.ok || !Array.isArray(r.body)) {
      newIds = [];
      $('new-list').hidden = true;
      err.textContent = (r.body && r.body.message) || ('HTTP ' + r.status);
      err.hidden = false;
      return;
    }
    err.hidden = true;
    newIds = r.body;
    for (const id of r.body) {
      const code = el('code', { class: 'idtext' }, id);
      const [copy, status] = copyButton(code, 'Copy ' + id);
      const dec = el('button', { type: 'button', class: 'decode-one', 'aria-label': 'Decode ' + id }, 'Decode');
      dec.addEventListener('click', () => {
        dec.toidWork = decodeAll([id], format).then((cards) => {
          if (cards[0]) { cards[0].scrollIntoView({ block: 'nearest' }); cards[0].focus({ preventScroll: true }); }
        });
      });
      list.append(el('li', { 'data-format': format, 'data-id': id }, code, ' ', copy, ' ', dec, ' ', status));
    }
    $('new-list').hidden = r.body.length === 0;
  }

  // ---- time -> range --------------------------------------------------------------
  // PostgreSQL's type for a format (ext/postgres): its name with '_' for
  // '-', except the one whose IDs are UUIDs, which is the core uuid type.
  function pgType(name) { return name === 'uuidv7' ? 'uuid' : name.replace(/-/g, '_'); }

  function copyable(attrs, text, label) {
    const code = el('code', attrs, text);
    return el('dd', {}, code, ' ', ...copyButton(code, label));
  }

  async function range(format, from, to) {
    const out = $('range-result');
    let url = '/v1/range/' + encodeURIComponent(format) + '?from=' + encodeURIComponent(from);
    if (to) url += '&to=' + encodeURIComponent(to);
    const r = await getJSON(url);
    out.textContent = '';
    if (!r.ok || !r.body || !r.body.lo) {
      const b = r.body || {};
      out.append(el('p', { class: 'error-msg', 'data-error': b.error || r.status },
        (b.message || 'HTTP ' + r.status) + (b.error ? ' (' + b.error + ')' : '')));
      return;
    }
    const b = r.body, t = pgType(b.format);
    const pg = "WHERE id BETWEEN '" + b.lo + "'::" + t + " AND '" + b.hi + "'::" + t;
    const lite = "WHERE id BETWEEN '" + b.lo + "' AND '" + b.hi + "'";
    const box = el('div', { class: 'range-out', 'data-format': b.format, 'data-lo': b.lo, 'data-hi': b.hi },
      el('dl', { class: 'times' },
        el('dt', {}, 'From'), el('dd', { 'data-range': 'from' }, b.from),
        el('dt', {}, 'To'), el('dd', { 'data-range': 'to' }, b.to),
        el('dt', {}, 'Lowest ID'), copyable({ 'data-range': 'lo' }, b.lo, 'Copy the lowest ID'),
        el('dt', {}, 'Highest ID'), copyable({ 'data-range': 'hi' }, b.hi, 'Copy the highest ID'),
        el('dt', {}, 'PostgreSQL'), copyable({ 'data-sql': 'postgresql' }, pg, 'Copy the PostgreSQL condition'),
        el('dt', {}, 'SQLite'), copyable({ 'data-sql': 'sqlite' }, lite, 'Copy the SQLite condition')));
    if (b.note) box.append(el('p', { class: 'note' }, b.note));
    box.append(el('p', { class: 'hint' }, 'PostgreSQL with the toid extension\'s ' + t +
      ' column; SQLite with the IDs stored as text.'));
    out.append(box);
  }

  // ---- ULID <-> UUID --------------------------------------------------------------
  async function convert(text) {
    const out = $('convert-result');
    const r = await getJSON('/v1/convert/' + encodeURIComponent(text));
    out.textContent = '';
    if (!r.ok || !r.body || !r.body.ulid) {
      const b = r.body || {};
      let msg = b.message || 'HTTP ' + r.status;
      if (b.error) msg += ' (' + b.error + ')';
      out.append(el('p', { class: 'error-msg', 'data-error': b.error || r.status }, msg));
      return;
    }
    out.append(el('dl', { class: 'times convert-out', 'data-ulid': r.body.ulid, 'data-uuid': r.body.uuid },
      el('dt', {}, 'ULID'), copyable({ 'data-convert': 'ulid' }, r.body.ulid, 'Copy the ULID'),
      el('dt', {}, 'UUID'), copyable({ 'data-convert': 'uuid' }, r.body.uuid, 'Copy the UUID')));
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
    const names = formats.filter((f) => f.generate).map((f) => f.name);   // (what this server hands out)
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
    const dsel = $('decode-format'), nsel = $('new-format'), rsel = $('range-format');
    for (const f of formats) {
      dsel.append(el('option', { value: f.name }, f.name));
      rsel.append(el('option', { value: f.name }, f.name));
      if (f.generate) nsel.append(el('option', { value: f.name }, f.name));
    }
  }

  // Light or dark, as the browser prefers; said on <body> for the tests.
  const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  function markScheme() {
    document.body.setAttribute('data-scheme', darkQuery && darkQuery.matches ? 'dark' : 'light');
    document.body.setAttribute('data-bg', getComputedStyle(document.body).backgroundColor);
  }

  // The work a button started (its click handler keeps the promise).
  async function press(button) {
    if (!button) return;
    button.click();
    await button.toidWork;
  }

  async function start() {
    markScheme();
    if (darkQuery && darkQuery.addEventListener) darkQuery.addEventListener('change', markScheme);
    const r = await getJSON('/v1/formats');
    formats = r.ok && Array.isArray(r.body) ? r.body : [];
    fillFormats();
    $('decode-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      decodeAll(splitIds($('ids').value), $('decode-format').value);
    });
    $('ids').addEventListener('keydown', (ev) => {   // Enter is a new line here
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        $('decode-form').requestSubmit();
      }
    });
    $('clear').addEventListener('click', () => { $('results').textContent = ''; $('ids').value = ''; });
    $('new-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const n = Math.max(1, Math.min(100, Number($('new-count').value) || 1));
      generate($('new-format').value, n);
    });
    const all = $('copy-all');
    all.addEventListener('click', () => {
      all.toidWork = copyText(newIds.join('\n'), $('new-output'), $('copy-all-status'));
    });
    $('range-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      ev.target.toidWork = range($('range-format').value, $('range-from').value.trim(), $('range-to').value.trim());
    });
    $('convert-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      ev.target.toidWork = convert($('convert-input').value.trim());
    });
    // a form's work, submitted as Enter or its button would
    const submit = async (form) => { form.requestSubmit(); await form.toidWork; };
    const work = [sample()];
    setInterval(() => { sample(); refreshAges(); }, 1000);
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
      work.push(generate(nw[1], Number(nw[2])).then(async () => {
        const items = $('new-output').children;
        const pick = Number(params.get('pick') || 0);
        if (pick >= 1 && pick <= items.length) await press(items[pick - 1].querySelector('.decode-one'));
        const copy = params.get('copy');
        if (copy === 'all') await press(all);
        else if (Number(copy) >= 1 && Number(copy) <= items.length)
          await press(items[Number(copy) - 1].querySelector('.copy'));
      }));
    }
    if (params.get('range')) {
      $('range-format').value = params.get('range');
      $('range-from').value = params.get('from') || '';
      $('range-to').value = params.get('to') || '';
      work.push(submit($('range-form')));
    }
    if (params.get('convert')) {
      $('convert-input').value = params.get('convert');
      work.push(submit($('convert-form')));
    }
    await Promise.all(work);
    markScheme();
    document.body.setAttribute('data-ready', '1');
  }

  document.addEventListener('DOMContentLoaded', () => {
    start().catch((e) => {
      $('results').append(el('p', { class: 'error-msg' }, 'This page could not start: ' + e));
      document.body.setAttribute('data-ready', 'error');
    });
  });
})();
