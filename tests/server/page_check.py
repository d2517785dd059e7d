#!/usr/bin/env python3
"""page_check.py — the DOM side of run_page_tests.sh (stdlib only).

  page_check.py fragment VECTORS_DIR
      prints the URL fragment that makes the page decode a sample of the
      shared vectors' valid IDs (each as FORMAT/ID), one invalid ID,
      generate 3 nanoflakes (then press Decode of the first and Copy all),
      turn a time into a range and convert a UUID to a ULID.
  page_check.py dom PORT VECTORS_DIR DOM_FILE UTC_OFFSET_MINUTES [TOID]
      checks the DOM Chromium dumped after that: every vector decoded to
      its expected fields, the bit layout drawn from /v1/layout (bits equal
      to the value's, characters equal to the text's) folded in a closed
      <details>, UTC and local times, the relative ages, the error card,
      the list of generated IDs and their buttons, the range (its IDs
      toid range's, the SQL) and the conversion (toid convert's), the
      controls in a sensible tab order, the chart. TOID is the toid CLI to
      compare with (without it: the server's /v1/range and /v1/convert).
  page_check.py fragment-dark PORT
      the fragment of the dark-mode run: one ID decoded, a range of the
      UUID format and a conversion.
  page_check.py dark PORT LIGHT_DOM DARK_DOM [TOID]
      checks that run: <body data-scheme> light in the first and dark in
      the second, their background colours differ, and the range and
      conversion as above.
  Each prints one line per failure and "N passed, N failed" last; exits 1
  on any failure.
"""
import datetime
import html.parser
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request

PER_FORMAT = 6          # vectors decoded per format (evenly spread)
INVALID = 'ulid/01ARZ3NDEKTSV4RRFFQ69G5FA'   # 25 characters: a length error
NEW = ('nanoflake', 3)
PICK = 1                # the new ID whose Decode button the page presses
# Time -> range: a zone ('+' sent as %2B), a month as TO (its last ms)
RANGE = ('nanoflake', '2024-01-01T10:30+01:00', '2024-02')
CONVERT = '550e8400-e29b-41d4-a716-446655440000'    # a UUID of version 4
# the dark run: the format whose IDs are UUIDs, found in /v1/formats
DARK_DECODE = '01ARZ3NDEKTSV4RRFFQ69G5FAV'
DARK_RANGE_FROM = '2024-06-01'
UUID_RE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')


def vectors(vdir):
    """(format, text, {field: value}) of a sample of the valid decode lines."""
    out = []
    for name in sorted(os.listdir(vdir)):
        if not name.endswith('.tsv'):
            continue
        rows = []
        with open(os.path.join(vdir, name), encoding='ascii') as f:
            for line in f:
                cols = line.rstrip('\n').split('\t')
                if len(cols) != 4 or cols[1] != 'decode' or not cols[3].startswith('ok'):
                    continue
                if '\\' in cols[2] or not cols[2]:
                    continue
                fields = dict(kv.split('=', 1) for kv in cols[3].split()[1:])
                rows.append((cols[0], cols[2], fields))
        seen = set()
        rows = [r for r in rows if (r[0], r[1]) not in seen and not seen.add((r[0], r[1]))]
        step = max(1, len(rows) // PER_FORMAT)
        out.extend(rows[::step][:PER_FORMAT])
    return out


def q(s):
    return urllib.parse.quote(s, safe='/:')


def fragment(vdir):
    ids = [f + '/' + t for f, t, _ in vectors(vdir)] + [INVALID]
    return ('decode=' + ','.join(urllib.parse.quote(i, safe='/') for i in ids) +
            '&new=%s:%d&pick=%d&copy=all' % (NEW + (PICK,)) +
            '&range=%s&from=%s&to=%s' % tuple(q(x) for x in RANGE) +
            '&convert=' + q(CONVERT))


def uuid_format(base):
    """The format whose canonical text is a UUID (36 characters, 128 bits),
    from /v1/formats."""
    with urllib.request.urlopen(base + '/v1/formats', timeout=30) as r:
        fs = json.load(r)
    return [f['name'] for f in fs if f['text_len'] == 36 and f['bits'] == 128][0]


def fragment_dark(base):
    return ('decode=' + DARK_DECODE + '&range=%s&from=%s' % (uuid_format(base), DARK_RANGE_FROM) +
            '&convert=' + DARK_DECODE)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], ''

    def all_text(self):
        return self.text + ''.join(c.all_text() for c in self.children)

    def find(self, tag=None, **attrs):
        """Every descendant with this tag and these attribute values
        (class_ matches one of the classes)."""
        found = []
        for c in self.children:
            ok = tag is None or c.tag == tag
            for k, v in attrs.items():
                if k == 'class_':
                    ok = ok and v in c.attrs.get('class', '').split()
                else:
                    ok = ok and c.attrs.get(k.replace('_', '-')) == v
            if ok:
                found.append(c)
            found.extend(c.find(tag, **attrs))
        return found


VOID = {'meta', 'link', 'br', 'input', 'img', 'hr', 'area', 'base', 'col', 'source', 'wbr'}


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = Node('#root', {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        if self.cur.children:
            # text after a child: keep it in order by a text node
            t = Node('#text', {}, self.cur)
            t.text = data
            self.cur.children.append(t)
        else:
            self.cur.text += data


passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL: ' + what)


def local_text(ms, offset_min):
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms + offset_min * 60000)
    sign = '+' if offset_min >= 0 else '-'
    a = abs(offset_min)
    return '%04d-%02d-%02d %02d:%02d:%02d.%03d %s%02d:%02d' % (
        d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond // 1000,
        sign, a // 60, a % 60)


def check_layout(card, fmt, text, hexv, layout, fields):
    """The picture: the bits are the value's, in the fields /v1/layout
    gives; the underlined characters are the text's."""
    total = layout['bin_size'] * 8
    want_bits = bin(int(hexv, 16))[2:].zfill(total)
    cells = card.find('td', class_='bit')
    got_bits = ''.join(c.all_text() for c in cells)
    check(got_bits == want_bits, '%s %s: bits drawn %s, want %s' % (fmt, text, got_bits, want_bits))
    for f in layout['fields']:
        lo, w = f['bit_offset'], f['bit_width']
        mine = [c for c in cells if lo <= int(c.attrs.get('data-bit', -1)) < lo + w]
        check(len(mine) == w, '%s %s: field %s has %d bit cells, want %d' % (fmt, text, f['name'], len(mine), w))
        row = card.find('tr', data_field=f['name'])
        legend = [r for r in row if r.parent.attrs.get('class') == 'legend' or
                  (r.parent.parent and r.parent.parent.attrs.get('class') == 'legend')]
        check(len(legend) == 1, '%s %s: legend row of %s' % (fmt, text, f['name']))
        if legend:
            tds = legend[0].find('td')
            value = tds[3].all_text() if len(tds) == 4 else ''
            # the inspection's own value where it has the field (ULID's
            # random in hex), else the bits as an integer
            want = fields.get(f['name']) if f['described'] else str(int(want_bits[lo:lo + w], 2))
            if want is not None:
                check(value.split(' ')[0] == want,
                      '%s %s: legend %s = %r, want %s' % (fmt, text, f['name'], value, want))
            check(tds[1].all_text() == '%d..%d' % (lo, lo + w - 1) if len(tds) == 4 else False,
                  '%s %s: legend bits of %s' % (fmt, text, f['name']))
        spans = card.find('span', data_field=f['name'])
        spans = [s for s in spans if s.parent.attrs.get('class') == 'text-spans']
        if f['char_start'] is None:
            check(not spans, '%s %s: %s has characters drawn but none in the layout' % (fmt, text, f['name']))
        else:
            s, n = f['char_start'], f['char_len']
            check(len(spans) == 1 and spans[0].all_text() == text[s:s + n],
                  '%s %s: characters of %s: %r, want %r' % (
                      fmt, text, f['name'], spans[0].all_text() if spans else None, text[s:s + n]))
    spans_text = ''.join(s.all_text() for s in card.find('div', class_='text-spans'))
    check(spans_text == text, '%s: the drawn text %r is the ID %r' % (fmt, spans_text, text))


def parse(path):
    t = Tree()
    with open(path, encoding='utf-8') as f:
        t.feed(f.read())
    return t.root


def by_id(root, ident):
    found = root.find(id=ident)
    return found[0] if found else None


def inside(node, ident):
    """Whether node is inside the element with id ident."""
    while node is not None:
        if node.attrs.get('id') == ident:
            return True
        node = node.parent
    return False


def cli_range(toid, base, fmt, frm, to):
    """[lo, hi] as toid range prints them, or the server's /v1/range
    without the CLI; and the server's answer (from, to)."""
    url = base + '/v1/range/%s?from=%s' % (fmt, urllib.parse.quote(frm, safe=''))
    if to:
        url += '&to=' + urllib.parse.quote(to, safe='')
    with urllib.request.urlopen(url, timeout=30) as r:
        js = json.load(r)
    if toid:
        out = subprocess.run([toid, 'range', fmt, frm] + ([to] if to else []),
                             capture_output=True, text=True, timeout=30)
        return out.stdout.split(), js
    return [js['lo'], js['hi']], js


def cli_convert(toid, base, text):
    """(ulid, uuid) as toid convert --to ulid writes the ULID and --to uuid
    that ULID's UUID, or the server's /v1/convert without the CLI."""
    if toid:
        ulid = subprocess.run([toid, 'convert', '--to', 'ulid', text], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        uuid = subprocess.run([toid, 'convert', '--to', 'uuid', ulid], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        return ulid, uuid
    with urllib.request.urlopen(base + '/v1/convert/' + urllib.parse.quote(text), timeout=30) as r:
        js = json.load(r)
    return js['ulid'], js['uuid']


def check_range(root, toid, base, fmt, frm, to):
    (want, js) = cli_range(toid, base, fmt, frm, to)
    check(len(want) == 2, 'toid range %s %s %s: two IDs (%r)' % (fmt, frm, to, want))
    if len(want) != 2:
        return
    lo, hi = want
    box = root.find('div', class_='range-out')
    check(len(box) == 1, 'range: one result (%d)' % len(box))
    if not box:
        return
    b = box[0]

    def field(attr, val):
        n = b.find(**{attr: val})
        return n[0].all_text() if n else None
    check(b.attrs.get('data-format') == fmt, 'range: format %r' % b.attrs.get('data-format'))
    check(field('data_range', 'lo') == lo and field('data_range', 'hi') == hi,
          'range %s %s..%s: %r..%r, toid range gives %s..%s' % (
              fmt, frm, to, field('data_range', 'lo'), field('data_range', 'hi'), lo, hi))
    check(field('data_range', 'from') == js['from'] and field('data_range', 'to') == js['to'],
          'range: from %r to %r, want %s %s' % (field('data_range', 'from'), field('data_range', 'to'),
                                               js['from'], js['to']))
    # PostgreSQL: the extension's type (the format's name, '_' for '-'), or
    # the core uuid type for IDs that are UUIDs; SQLite: text
    t = 'uuid' if UUID_RE.match(lo) else fmt.replace('-', '_')
    pg = "WHERE id BETWEEN '%s'::%s AND '%s'::%s" % (lo, t, hi, t)
    lite = "WHERE id BETWEEN '%s' AND '%s'" % (lo, hi)
    check(field('data_sql', 'postgresql') == pg, 'range: PostgreSQL %r, want %r' % (field('data_sql', 'postgresql'), pg))
    check(field('data_sql', 'sqlite') == lite, 'range: SQLite %r, want %r' % (field('data_sql', 'sqlite'), lite))
    copies = [n for n in b.find(class_='copy') if n.tag == 'button']
    check(len(copies) == 4, 'range: a Copy button for lo, hi and each SQL (%d)' % len(copies))


def check_convert(root, toid, base, text):
    ulid, uuid = cli_convert(toid, base, text)
    box = root.find('dl', class_='convert-out')
    check(len(box) == 1, 'convert: one result (%d)' % len(box))
    if not box:
        return
    got_ulid = box[0].find(data_convert='ulid')
    got_uuid = box[0].find(data_convert='uuid')
    got = (got_ulid[0].all_text() if got_ulid else None, got_uuid[0].all_text() if got_uuid else None)
    check(got == (ulid, uuid) and ulid and uuid,
          'convert %s: %r, toid convert gives %r' % (text, got, (ulid, uuid)))
    copies = [n for n in box[0].find(class_='copy') if n.tag == 'button']
    check(len(copies) == 2, 'convert: a Copy button for each (%d)' % len(copies))


FOCUSABLE = {'button', 'input', 'select', 'textarea', 'summary'}
# the form controls in the order Tab reaches them: each form's fields, then
# its submit button, the forms in the order of the page
TAB_ORDER = ['ids', 'decode-format', 'decode-submit', 'clear', 'new-format', 'new-count',
             'new-submit', 'copy-all', 'range-format', 'range-from', 'range-to', 'range-submit',
             'convert-input', 'convert-submit']


def check_keyboard(root):
    """Tab order: the document's (no positive tabindex), the controls in
    TAB_ORDER's order; every field labelled; every form has a submit button
    (Enter submits it); every Copy is a button."""
    nodes = []

    def walk(n):
        for c in n.children:
            nodes.append(c)
            walk(c)
    walk(root)
    focus = [n for n in nodes if n.tag in FOCUSABLE or (n.tag == 'a' and 'href' in n.attrs) or
             'tabindex' in n.attrs]
    positive = [n.attrs for n in focus if int(n.attrs.get('tabindex', '0') or 0) > 0]
    check(not positive, 'no positive tabindex (Tab follows the document): %r' % positive)
    order = [n.attrs.get('id') for n in focus if n.attrs.get('id') in TAB_ORDER]
    check(order == TAB_ORDER, 'tab order of the controls: %r, want %r' % (order, TAB_ORDER))
    labels = {n.attrs.get('for') for n in nodes if n.tag == 'label'}
    for n in nodes:
        if n.tag in ('input', 'select', 'textarea'):
            p, labelled = n.parent, n.attrs.get('id') in labels
            while p is not None and not labelled:
                labelled = p.tag == 'label'
                p = p.parent
            check(labelled, 'a label for %s#%s' % (n.tag, n.attrs.get('id')))
    for f in root.find('form'):
        sub = [b for b in f.find('button') if b.attrs.get('type') == 'submit']
        check(len(sub) == 1, 'form %s: one submit button (Enter submits)' % f.attrs.get('id'))
    copies = root.find(class_='copy')
    check(copies and all(n.tag == 'button' and n.attrs.get('type') == 'button' for n in copies),
          'every Copy is a <button type=button> (%r)' % sorted({n.tag for n in copies}))


AGE_RE = re.compile(r'(ago|in )')


def check_card_extras(c, what):
    """The relative age, and the bit picture folded in a closed <details>
    (the text with its fields underlined and the fields table outside it)."""
    age = c.find('dd', data_time='age')
    check(len(age) == 1 and AGE_RE.search(age[0].all_text()),
          '%s: a relative age (%r)' % (what, age[0].all_text() if age else None))
    det = c.find('details')
    check(len(det) == 1 and 'open' not in det[0].attrs, '%s: one closed <details> (%r)' % (
        what, [d.attrs for d in det]))
    if det:
        summ = det[0].find('summary')
        check(summ and summ[0].all_text() == 'Bits', '%s: its summary says Bits' % what)
        check(len(det[0].find('table', class_='bits')) == 1 and len(det[0].find('table', class_='legend')) == 1,
              '%s: the bits and the legend inside it' % what)
        check(not det[0].find('div', class_='text-spans') and not det[0].find('table', class_='fields'),
              '%s: the text and the fields outside it' % what)


def dom(port, vdir, path, offset_min, toid):
    base = 'http://127.0.0.1:%s' % port
    layouts = {}

    def layout(fmt):
        if fmt not in layouts:
            with urllib.request.urlopen(base + '/v1/layout/' + fmt, timeout=30) as r:
                layouts[fmt] = json.load(r)
        return layouts[fmt]

    root = parse(path)
    body = root.find('body')
    check(body and body[0].attrs.get('data-ready') == '1',
          'the page finished its work (body data-ready=%r)' % (body[0].attrs.get('data-ready') if body else None))
    cards = root.find('article', class_='card')
    for fmt, text, fields in vectors(vdir):
        mine = [c for c in cards if c.attrs.get('data-format') == fmt and
                c.attrs.get('data-input') == text and 'error' not in c.attrs.get('class', '')]
        check(len(mine) == 1, '%s %s: one card (found %d)' % (fmt, text, len(mine)))
        if not mine:
            continue
        c = mine[0]
        check(c.attrs.get('data-unix-ms') == fields['unix_ms'],
              '%s %s: unix_ms %s, want %s' % (fmt, text, c.attrs.get('data-unix-ms'), fields['unix_ms']))
        for k, v in fields.items():
            row = [r for r in c.find('tr', data_field=k) if r.parent.attrs.get('class') == 'fields' or
                   (r.parent.parent and r.parent.parent.attrs.get('class') == 'fields')]
            got = row[0].find('td')[0].all_text() if row and row[0].find('td') else None
            check(got == v, '%s %s: field %s = %r, want %r' % (fmt, text, k, got, v))
        ms = int(fields['unix_ms'])
        utc = c.find('dd', data_time='utc')
        want_utc = None
        if ms < 253402300800000 - 86400000:     # Python's datetime ends with year 9999
            d = datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=ms)
            want_utc = '%04d-%02d-%02dT%02d:%02d:%02d.%03dZ' % (
                d.year, d.month, d.day, d.hour, d.minute, d.second, d.microsecond // 1000)
        if want_utc:
            check(utc and utc[0].all_text() == want_utc,
                  '%s %s: UTC %r, want %r' % (fmt, text, utc[0].all_text() if utc else None, want_utc))
        loc = c.find('dd', data_time='local')
        if want_utc:
            want_loc = local_text(ms, offset_min)
            check(loc and loc[0].all_text() == want_loc,
                  '%s %s: local %r, want %r' % (fmt, text, loc[0].all_text() if loc else None, want_loc))
        check_layout(c, fmt, c.attrs.get('data-text', ''), fields['hex'], layout(fmt), fields)
        check_card_extras(c, '%s %s' % (fmt, text))
    # the invalid one: an error card with the decoder's class, no decoded card
    bad = INVALID.split('/', 1)[1]
    errs = [c for c in cards if c.attrs.get('data-input') == bad]
    check(len(errs) == 1 and 'error' in errs[0].attrs.get('class', '') and
          errs[0].attrs.get('data-error') == 'length',
          'the invalid ID: one error card of class length (%r)' % [e.attrs for e in errs])
    # the generated ones: a plain list, strictly increasing, each with a
    # Copy and a Decode button; only the one whose Decode was pressed is
    # decoded (a card), with its age
    fmt, n = NEW
    lis = [li for li in root.find('li', data_format=fmt) if li.parent.attrs.get('id') == 'new-output']
    items = [li.attrs.get('data-id') for li in lis]
    check(len(items) == n, 'generated %d %s, want %d' % (len(items), fmt, n))
    check(items == sorted(set(items)), 'generated IDs strictly increasing: %r' % items)
    for li in lis:
        code = li.find('code', class_='idtext')
        check(len(code) == 1 and code[0].all_text() == li.attrs.get('data-id'),
              'generated %s: its text in monospace' % li.attrs.get('data-id'))
        check(len([b for b in li.find('button', class_='copy')]) == 1 and
              len(li.find('button', class_='decode-one')) == 1,
              'generated %s: a Copy and a Decode button' % li.attrs.get('data-id'))
    for k, i in enumerate(items):
        mine = [c for c in cards if c.attrs.get('data-format') == fmt and c.attrs.get('data-text') == i]
        want = 1 if k == PICK - 1 else 0
        check(len(mine) == want, 'generated %s: %d card(s), want %d (Decode pressed: %s)' % (
            i, len(mine), want, k == PICK - 1))
        if mine:
            check_card_extras(mine[0], 'generated ' + i)
    copy_all = by_id(root, 'copy-all')
    check(copy_all is not None and copy_all.tag == 'button' and inside(copy_all, 'generate'),
          'a Copy all button in Generate')
    status = by_id(root, 'copy-all-status')
    # (headless Chromium may refuse the clipboard: the list is selected then)
    check(status is not None and status.attrs.get('data-said') in ('copied', 'selected'),
          'Copy all pressed: copied, or selected for Ctrl+C (%r)' % (status.attrs if status else None))
    check_range(root, toid, base, *RANGE)
    check_convert(root, toid, base, CONVERT)
    check_keyboard(root)
    # the chart: a series per format; the ulid total counts the IDs the
    # test fetched before loading the page
    lines = root.find('polyline')
    with urllib.request.urlopen(base + '/v1/formats', timeout=30) as r:
        served = [f['name'] for f in json.load(r) if f['generate']]
    check(sorted(l.attrs.get('data-format') for l in lines) == sorted(served),
          'chart: series %s, want those the server hands out %s'
          % ([l.attrs.get('data-format') for l in lines], served))
    ulid = [li for li in root.find('li', data_format='ulid') if li.parent.attrs.get('id') == 'chart-legend']
    total = int(ulid[0].attrs.get('data-total', -1)) if ulid else -1
    check(total >= 100, 'chart legend: ulid total %d, want >= 100' % total)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def dark(port, light_path, dark_path, toid):
    base = 'http://127.0.0.1:%s' % port
    light, darkroot = parse(light_path), parse(dark_path)
    lb, db = light.find('body'), darkroot.find('body')
    check(lb and lb[0].attrs.get('data-scheme') == 'light', 'the light run: <body data-scheme=light> (%r)' % (
        lb[0].attrs if lb else None))
    check(db and db[0].attrs.get('data-scheme') == 'dark' and db[0].attrs.get('data-ready') == '1',
          'the dark run: <body data-scheme=dark data-ready=1> (%r)' % (db[0].attrs if db else None))
    lbg = lb[0].attrs.get('data-bg') if lb else None
    dbg = db[0].attrs.get('data-bg') if db else None
    check(lbg and dbg and lbg != dbg, 'the background differs: light %r, dark %r' % (lbg, dbg))
    check_range(darkroot, toid, base, uuid_format(base), DARK_RANGE_FROM, None)
    check_convert(darkroot, toid, base, DARK_DECODE)
    cards = darkroot.find('article', class_='card')
    check(len(cards) == 1 and cards[0].attrs.get('data-text') == DARK_DECODE, 'the dark run: one card')
    if cards:
        check_card_extras(cards[0], 'dark ' + DARK_DECODE)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'fragment':
        print(fragment(sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) == 3 and sys.argv[1] == 'fragment-dark':
        print(fragment_dark('http://127.0.0.1:%s' % sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) in (6, 7) and sys.argv[1] == 'dom':
        sys.exit(dom(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
                     sys.argv[6] if len(sys.argv) == 7 else None))
    if len(sys.argv) in (5, 6) and sys.argv[1] == 'dark':
        sys.exit(dark(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) == 6 else None))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
