#!/usr/bin/env python3
"""page_check.py — the DOM side of run_page_tests.sh (stdlib only).

  page_check.py fragment VECTORS_DIR
      prints the URL fragment that makes the page decode a sample of the
      shared vectors' valid IDs (each as FORMAT/ID), one invalid ID, and
      generate 3 nanoflakes.
  page_check.py dom PORT VECTORS_DIR DOM_FILE UTC_OFFSET_MINUTES
      checks the DOM Chromium dumped after that: every vector decoded to
      its expected fields, the bit layout drawn from /v1/layout (bits equal
      to the value's, characters equal to the text's), UTC and local times,
      the error card, the generated IDs, the chart. Prints one line per
      failure and "N passed, N failed" last; exits 1 on any failure.
"""
import datetime
import html.parser
import json
import os
import sys
import urllib.parse
import urllib.request

PER_FORMAT = 6          # vectors decoded per format (evenly spread)
INVALID = 'ulid/01ARZ3NDEKTSV4RRFFQ69G5FA'   # 25 characters: a length error
NEW = ('nanoflake', 3)


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


def fragment(vdir):
    ids = [f + '/' + t for f, t, _ in vectors(vdir)] + [INVALID]
    return ('decode=' + ','.join(urllib.parse.quote(i, safe='/') for i in ids) +
            '&new=%s:%d' % NEW)


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


def dom(port, vdir, path, offset_min):
    base = 'http://127.0.0.1:%s' % port
    layouts = {}

    def layout(fmt):
        if fmt not in layouts:
            with urllib.request.urlopen(base + '/v1/layout/' + fmt, timeout=30) as r:
                layouts[fmt] = json.load(r)
        return layouts[fmt]

    t = Tree()
    with open(path, encoding='utf-8') as f:
        t.feed(f.read())
    root = t.root
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
    # the invalid one: an error card with the decoder's class, no decoded card
    bad = INVALID.split('/', 1)[1]
    errs = [c for c in cards if c.attrs.get('data-input') == bad]
    check(len(errs) == 1 and 'error' in errs[0].attrs.get('class', '') and
          errs[0].attrs.get('data-error') == 'length',
          'the invalid ID: one error card of class length (%r)' % [e.attrs for e in errs])
    # the generated ones: listed, decoded, strictly increasing, made just now
    fmt, n = NEW
    items = [li.all_text() for li in root.find('li', data_format=fmt)
             if li.parent.attrs.get('id') == 'new-output']
    check(len(items) == n, 'generated %d %s, want %d' % (len(items), fmt, n))
    check(items == sorted(set(items)), 'generated IDs strictly increasing: %r' % items)
    for i in items:
        mine = [c for c in cards if c.attrs.get('data-format') == fmt and c.attrs.get('data-text') == i]
        check(len(mine) == 1, 'generated %s decoded on the page' % i)
    # the chart: a series per format; the ulid total counts the IDs the
    # test fetched before loading the page
    lines = root.find('polyline')
    check(len(lines) == 8, 'chart: %d series, want 8' % len(lines))
    ulid = [li for li in root.find('li', data_format='ulid') if li.parent.attrs.get('id') == 'chart-legend']
    total = int(ulid[0].attrs.get('data-total', -1)) if ulid else -1
    check(total >= 100, 'chart legend: ulid total %d, want >= 100' % total)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == 'fragment':
        print(fragment(sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) == 6 and sys.argv[1] == 'dom':
        sys.exit(dom(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
