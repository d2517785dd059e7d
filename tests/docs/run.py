#!/usr/bin/env python3
"""run.py: run or check every fenced code block of README.md and docs/*.md,
and check the links between them (issue 31; the conventions are in
tests/docs/README.md).

usage:
  run.py [paths...] DOC.md...    run/check each document's blocks
  run.py [paths...] --links [DOC.md...]
                                 check relative links and #anchors (default:
                                 README.md and docs/*.md under --root)
  run.py --list DOC.md...        print each block's kind, run nothing
  run.py [paths...] --selftest   run the fixtures of tests/docs/fixtures

Documents are named relative to --root (default: the checkout this script is
in). Each block prints one line, FILE:LINE: KIND: ok | FAIL | skip | norun;
a failure is followed by its diff or stderr; the last line is
"N passed, N failed". Exit 0 when nothing failed, 1 on a failure, 77 (ctest:
skipped) when nothing failed but a block was skipped because its tool is
missing (--strict: a failure instead).

Python 3 standard library only (PyYAML is used for ```yaml blocks when it
can be imported, else a structural check).
"""

import argparse
import difflib
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ROOT = os.path.dirname(os.path.dirname(HERE))
TOKEN_VAR = 'TOID_DOCS_RUN'          # every process a block starts inherits it
EXIT_SKIP = 77


# ---------------------------------------------------------------- markdown

class Block:
    def __init__(self, doc, line, info, lines):
        self.doc = doc              # path as given (relative to root)
        self.line = line            # 1-based line of the opening fence
        self.info = info.strip()
        self.text = ''.join(l + '\n' for l in lines)
        words = self.info.split(None, 1)
        self.lang = words[0] if words else ''
        self.rest = words[1].strip() if len(words) > 1 else ''

    def where(self):
        return f'{self.doc}:{self.line}'


FENCE = re.compile(r'^( {0,3})(`{3,}|~{3,})(.*)$')


def parse_blocks(doc, text):
    """The fenced code blocks of a Markdown text (CommonMark fences; a fence
    in a list item may be indented more: its indentation is removed from the
    block's lines). Returns (blocks, errors)."""
    blocks, errors = [], []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^(\s*)(`{3,}|~{3,})(.*)$', lines[i])
        if not m or (m.group(2)[0] == '`' and '`' in m.group(3)):
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        start = i
        body = []
        i += 1
        closed = False
        while i < len(lines):
            c = re.match(r'^(\s*)(`{3,}|~{3,})\s*$', lines[i])
            if c and c.group(2)[0] == fence[0] and len(c.group(2)) >= len(fence):
                closed = True
                break
            l = lines[i]
            strip = min(indent, len(l) - len(l.lstrip(' ')))
            body.append(l[strip:])
            i += 1
        if not closed:
            errors.append(f'{doc}:{start + 1}: a code fence that is never closed')
        blocks.append(Block(doc, start + 1, info, body))
        i += 1
    return blocks, errors


def strip_code(text):
    """The text with fenced blocks blanked (line numbers kept) and inline code
    spans blanked, for finding links and headings."""
    out = []
    infence = None
    for l in text.split('\n'):
        m = re.match(r'^\s*(`{3,}|~{3,})', l)
        if infence:
            if m and m.group(1)[0] == infence[0] and len(m.group(1)) >= len(infence) and \
                    l.strip() == m.group(1) + l.strip()[len(m.group(1)):] and \
                    not l.strip()[len(m.group(1)):].strip():
                infence = None
            out.append('')
            continue
        if m and not (m.group(1)[0] == '`' and '`' in l.strip()[len(m.group(1)):]):
            infence = m.group(1)
            out.append('')
            continue
        out.append(l)
    return '\n'.join(out)


def blank_inline_code(line):
    return re.sub(r'(`+)(.+?)\1', lambda m: ' ' * len(m.group(0)), line)


def heading_text_plain(raw):
    """A heading's text as GitHub renders it (before slugging)."""
    t = raw
    t = re.sub(r'!\[([^\]]*)\]\([^)]*\)', r'\1', t)          # images
    t = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', t)           # links
    t = re.sub(r'\[([^\]]*)\]\[[^\]]*\]', r'\1', t)          # reference links
    t = re.sub(r'<[^>]+>', '', t)                            # HTML tags
    t = re.sub(r'(`+)(.+?)\1', lambda m: m.group(2), t)       # code spans
    t = re.sub(r'(\*\*|__)(.+?)\1', r'\2', t)                # strong
    t = re.sub(r'(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])', r'\1', t)   # emphasis
    t = re.sub(r'(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)', r'\1', t)
    return t.strip()


def github_slug(text):
    """GitHub's heading anchor: lower case; letters, marks, digits, '_',
    '-' and spaces kept, everything else dropped; spaces to '-'."""
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if cat[0] in 'LMN' or cat == 'Pc' or ch in ' -':
            out.append('-' if ch == ' ' else ch)
    return ''.join(out)


def anchors_of(text):
    """Every anchor a Markdown text defines: heading slugs (with GitHub's -1,
    -2 suffixes for repeats) and HTML id= / name= attributes."""
    seen = {}
    anchors = set()
    lines = strip_code(text).split('\n')
    for n, l in enumerate(lines):
        m = re.match(r'^ {0,3}(#{1,6})\s+(.*?)\s*(?:\s#+\s*)?$', l)
        raw = None
        if m:
            raw = m.group(2)
            if re.fullmatch(r'#+', raw or ''):
                raw = ''
        elif n + 1 < len(lines) and l.strip() and re.match(r'^ {0,3}(=+|-+)\s*$', lines[n + 1]) \
                and not re.match(r'^\s*([-*+]|\d+[.)])\s', l) and not l.startswith('    ') \
                and (n == 0 or not lines[n - 1].strip()):
            raw = l.strip()
        if raw is not None:
            slug = github_slug(heading_text_plain(raw))
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            anchors.add(slug if k == 0 else f'{slug}-{k}')
        for a in re.finditer(r'<a\s[^>]*\b(?:id|name)\s*=\s*["\']([^"\']+)["\']', l):
            anchors.add(a.group(1))
    return anchors


LINK_INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+["\'][^)]*["\'])?\s*\)')
LINK_REF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
HTML_LINK = re.compile(r'<(?:a|img)\s[^>]*\b(?:href|src)\s*=\s*["\']([^"\']+)["\']')


def links_of(text):
    """(line, target) of every inline, reference and HTML link outside code."""
    out = []
    for n, l in enumerate(strip_code(text).split('\n'), 1):
        l = blank_inline_code(l)
        m = LINK_REF.match(l)
        if m:
            out.append((n, m.group(1)))
            continue
        for m in LINK_INLINE.finditer(l):
            out.append((n, m.group(1)))
        for m in HTML_LINK.finditer(l):
            out.append((n, m.group(1)))
    return out


def check_links(root, docs, report):
    """Relative links of each doc: the file exists inside root; a #anchor
    names a heading of the target Markdown file (or #Ln / #Ln-Lm a line of
    another file)."""
    cache = {}
    root_norm = os.path.normpath(os.path.abspath(root))

    def anchors(path):
        if path not in cache:
            with open(path, encoding='utf-8') as f:
                cache[path] = anchors_of(f.read())
        return cache[path]

    for doc in docs:
        full = os.path.join(root_norm, doc)
        with open(full, encoding='utf-8') as f:
            text = f.read()
        nlinks = 0
        problems = []
        for line, target in links_of(text):
            if not target or re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target) or target.startswith('//'):
                continue            # a URL (http:, mailto:, ...): not checked here
            nlinks += 1
            path, _, anchor = target.partition('#')
            path = urllib.parse.unquote(path)
            anchor = urllib.parse.unquote(anchor)
            if path.startswith('/'):
                problems.append((line, target, 'an absolute path: GitHub resolves it against the '
                                 'repository root only in some views; use a relative link'))
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(full), path)) if path else full
            if dest != root_norm and not dest.startswith(root_norm + os.sep):
                problems.append((line, target, 'points outside the repository'))
                continue
            if not os.path.exists(dest):
                problems.append((line, target, f'no such file: {os.path.relpath(dest, root)}'))
                continue
            if not anchor:
                continue
            if os.path.isdir(dest):
                problems.append((line, target, 'an anchor on a directory'))
            elif dest.endswith('.md'):
                if anchor not in anchors(dest):
                    near = difflib.get_close_matches(anchor, sorted(anchors(dest)), 3, 0.6)
                    hint = f' (did you mean {", ".join("#" + x for x in near)}?)' if near else ''
                    problems.append((line, target, f'no heading in {os.path.relpath(dest, root)} '
                                     f'has the anchor #{anchor}{hint}'))
            else:
                m = re.fullmatch(r'L(\d+)(?:-L(\d+))?', anchor)
                if not m:
                    problems.append((line, target, 'an anchor into a file that is not Markdown '
                                     '(only #Ln or #Ln-Lm are checked)'))
                else:
                    with open(dest, 'rb') as f:
                        count = f.read().count(b'\n')
                    last = int(m.group(2) or m.group(1))
                    if last > count:
                        problems.append((line, target, f'{os.path.relpath(dest, root)} has {count} lines'))
        if problems:
            for line, target, why in problems:
                report.fail(f'{doc}:{line}: link ({target})', why)
        else:
            report.ok(f'{doc}: links ({nlinks} relative)')


# ----------------------------------------------------------------- report

class Report:
    def __init__(self):
        self.passed = self.failed = self.skipped = self.norun = 0

    def ok(self, what, note=''):
        self.passed += 1
        print(f'{what}: ok{(" (" + note + ")") if note else ""}', flush=True)

    def fail(self, what, detail=''):
        self.failed += 1
        print(f'{what}: FAIL', flush=True)
        if detail:
            for l in detail.rstrip('\n').split('\n'):
                print(f'    {l}')
        sys.stdout.flush()

    def skip(self, what, why):
        self.skipped += 1
        print(f'{what}: skip ({why})', flush=True)

    def listed_norun(self, what, why):
        self.norun += 1
        print(f'{what}: norun ({why})', flush=True)

    def summary(self):
        extra = []
        if self.skipped:
            extra.append(f'{self.skipped} skipped')
        if self.norun:
            extra.append(f'{self.norun} marked norun')
        if extra:
            print('(' + '; '.join(extra) + ')')
        print(f'{self.passed} passed, {self.failed} failed', flush=True)


# ------------------------------------------------------ expected output

def line_matches(pattern, line):
    if '...' not in pattern:
        return pattern == line
    parts = pattern.split('...')
    rx = '.*'.join(re.escape(p) for p in parts)
    return re.fullmatch(rx, line, re.S) is not None


def output_matches(expected, actual):
    """expected, actual: lists of lines. A line that is only '...' matches
    any number of lines; '...' inside a line matches any text."""
    memo = {}

    def m(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i] == '...':
            r = any(m(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_matches(expected[i], actual[j]) and m(i + 1, j + 1)
        memo[key] = r
        return r

    return m(0, 0)


def split_lines(text):
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    return lines


def diff(expected, actual):
    return '\n'.join(difflib.unified_diff(expected, actual, 'expected', 'actual', lineterm='', n=3))


# ------------------------------------------------------------- the runner

class Tools:
    """Where the build's pieces are (from the command line; CMake passes
    them)."""

    def __init__(self, a):
        self.root = os.path.abspath(a.root)          # where the documents are
        self.src = os.path.abspath(a.src)            # the checkout: include/, bindings/node
        b = os.path.abspath(a.build) if a.build else None
        self.build = b

        def pick(given, *default):
            if given:
                return os.path.abspath(given)
            if b:
                p = os.path.join(b, *default)
                return p if os.path.exists(p) else None
            return None

        self.toid = pick(a.toid, 'tools', 'toid')
        self.toidd = pick(a.toidd, 'server', 'toidd')
        self.sqlite_ext = pick(a.sqlite_ext, 'ext', 'sqlite', 'toid.so')
        self.python_lib = pick(a.python_lib, 'bindings', 'python', 'lib')
        self.node_addon = pick(a.node_addon, 'bindings', 'node', 'build', 'Release', 'toid.node')
        self.libtoid = pick(a.libtoid, 'libtoid.a')
        self.claim_lib = pick(a.claim_lib, 'claim', 'libtoid_claim.a')
        self.pg_build = pick(a.pg_build, 'ext', 'postgres')
        cache = read_cmake_cache(b) if b else {}
        pg_args = a.pg_make_arg
        if not pg_args and cache.get('TOID_PG_MAKE_ARGS_ALL'):
            pg_args = [x.replace('$<TARGET_FILE:toid_static>', self.libtoid or '')
                        .replace('$<TARGET_FILE:toid_claim>', self.claim_lib or '')
                       for x in cache['TOID_PG_MAKE_ARGS_ALL'].split(';')]
        self.pg_make_args = pg_args or []
        claim_libs = a.claim_libs
        if claim_libs is None:
            claim_libs = ''.join(x[len('TOID_CLAIM_LIBS='):] for x in self.pg_make_args
                                 if x.startswith('TOID_CLAIM_LIBS='))
        self.claim_libs = [x for x in claim_libs.replace(';', ' ').split() if x]
        self.python = a.python or cache.get('TOID_PYTHON') or sys.executable
        self.node = a.node or cache.get('TOID_NODE') or shutil.which('node')
        self.cc = a.cc or os.environ.get('CC') or shutil.which('cc') or 'cc'
        self.node_src = os.path.join(self.src, 'bindings', 'node')
        self.include = os.path.join(self.src, 'include')
        self.claim_include = os.path.join(self.src, 'claim')
        self.block_timeout = a.block_timeout
        self.kinds = set(a.kinds.split(',')) if a.kinds else None


def read_cmake_cache(build):
    out = {}
    try:
        with open(os.path.join(build, 'CMakeCache.txt'), encoding='utf-8', errors='replace') as f:
            for l in f:
                m = re.match(r'^([A-Za-z_0-9]+):[A-Z]+=(.*)$', l.rstrip('\n'))
                if m:
                    out[m.group(1)] = m.group(2)
    except OSError:
        pass
    return out


def proc_env_has(pid, needle):
    try:
        with open(f'/proc/{pid}/environ', 'rb') as f:
            return needle in f.read().split(b'\0')
    except OSError:
        return False


def processes_with(token):
    needle = f'{TOKEN_VAR}={token}'.encode()
    me = os.getpid()
    out = []
    for p in os.listdir('/proc'):
        if p.isdigit() and int(p) != me and proc_env_has(p, needle):
            out.append(int(p))
    return out


def kill_all(token, groups):
    """SIGTERM to each process group a block started and to every process
    carrying the token (a daemon that left its group); SIGKILL after 3 s."""
    for g in groups:
        try:
            os.killpg(g, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    for p in processes_with(token):
        try:
            os.kill(p, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.time() + 3
    while time.time() < deadline:
        if not processes_with(token):
            break
        time.sleep(0.1)
    left = processes_with(token)
    for g in groups:
        try:
            os.killpg(g, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return left


class PgCluster:
    """One throwaway PostgreSQL cluster for the run: the built extension
    installed into a DESTDIR tree (extension_destdir, as
    ext/postgres/pg_cluster.sh does), initdb in the temp dir, Unix socket
    there, no TCP; run as postgres when we are root."""

    def __init__(self, tools, tmp, claim_env):
        self.t = tools
        self.dir = os.path.join(tmp, 'pg')
        self.claim_env = claim_env
        self.started = False
        self.error = None
        self.skip = None
        self.env = {}
        self.port = None

    def _as_pg(self, argv):
        return (['runuser', '-u', 'postgres', '--'] + argv) if os.geteuid() == 0 else argv

    def start(self):
        if self.started or self.error or self.skip:
            return
        t = self.t
        pg_config = None
        for a in t.pg_make_args:
            if a.startswith('PG_CONFIG='):
                pg_config = a[len('PG_CONFIG='):]
        pg_config = pg_config or shutil.which('pg_config') or '/usr/lib/postgresql/15/bin/pg_config'
        if not t.pg_build or not os.path.exists(os.path.join(t.pg_build, 'toid.so')):
            self.skip = 'the PostgreSQL extension is not built (no --pg-build with toid.so)'
            return
        if '-f' not in t.pg_make_args:     # never the CMake Makefile's install
            self.skip = ('no --pg-make-arg (-f ext/postgres/Makefile PG_CONFIG=... TOID_LIB=...: '
                         'CMake passes them, or --build finds them in CMakeCache.txt)')
            return
        if not os.path.exists(pg_config):
            self.skip = 'pg_config not found (postgresql-server-dev-15)'
            return
        bindir = subprocess.run([pg_config, '--bindir'], capture_output=True, text=True).stdout.strip()
        for p in ('initdb', 'pg_ctl', 'psql', 'postgres'):
            if not os.access(os.path.join(bindir, p), os.X_OK):
                self.skip = f'{bindir}/{p} not found (postgresql-15)'
                return
        if os.geteuid() == 0:
            try:
                import pwd
                pw = pwd.getpwnam('postgres')
            except KeyError:
                self.skip = 'running as root and there is no postgres user to run the cluster as'
                return
        self.bindir = bindir
        d = self.dir
        os.makedirs(d)
        os.chmod(d, 0o755)
        env = dict(os.environ)
        env.pop('MAKEFLAGS', None)
        env.pop('MFLAGS', None)
        r = subprocess.run(['make', '-C', t.pg_build] + t.pg_make_args + ['install', f'DESTDIR={d}/dest'],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            self.error = 'make install of the extension failed:\n' + r.stdout[-3000:] + r.stderr[-3000:]
            return
        for sub in ('data', 'sock', 'log'):
            os.makedirs(os.path.join(d, sub))
            if os.geteuid() == 0:
                os.chown(os.path.join(d, sub), pw.pw_uid, pw.pw_gid)
        r = subprocess.run(self._as_pg([f'{bindir}/initdb', '-D', f'{d}/data', '-A', 'trust', '-U', 'postgres',
                                        '-E', 'UTF8', '--locale=C', '--no-sync']),
                           capture_output=True, text=True, cwd=d)
        if r.returncode != 0:
            self.error = 'initdb failed:\n' + r.stdout + r.stderr
            return
        self.port = 20000 + secrets.randbelow(40000)
        pkglibdir = subprocess.run([pg_config, '--pkglibdir'], capture_output=True, text=True).stdout.strip()
        preload = f'{d}/dest{pkglibdir}/toid'
        with open(f'{d}/data/postgresql.conf', 'a') as f:
            f.write(f"""
listen_addresses = ''
port = {self.port}
unix_socket_directories = '{d}/sock'
extension_destdir = '{d}/dest'
shared_preload_libraries = '{preload}'
fsync = off
synchronous_commit = off
full_page_writes = off
""")
        senv = dict(os.environ)
        senv.update(self.claim_env)
        r = subprocess.run(self._as_pg(['env'] + [f'{k}={v}' for k, v in self.claim_env.items()] +
                                       [f'{bindir}/pg_ctl', '-D', f'{d}/data', '-l', f'{d}/log/server.log',
                                        '-w', '-t', '120', 'start']),
                           capture_output=True, text=True, cwd=d, env=senv)
        if r.returncode != 0:
            log = ''
            try:
                with open(f'{d}/log/server.log') as f:
                    log = f.read()
            except OSError:
                pass
            self.error = 'the cluster did not start:\n' + r.stdout + r.stderr + log
            return
        self.started = True
        self.env = {'PGHOST': f'{d}/sock', 'PGPORT': str(self.port), 'PGUSER': 'postgres'}

    def createdb(self, name):
        env = dict(os.environ)
        env.update(self.env)
        r = subprocess.run([f'{self.bindir}/createdb', name], capture_output=True, text=True, env=env)
        return r.returncode == 0, r.stderr

    def stop(self):
        if not self.started:
            return
        pidfile = f'{self.dir}/data/postmaster.pid'
        try:
            with open(pidfile) as f:
                pid = int(f.readline())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return
        for _ in range(300):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def server_log_tail(self):
        try:
            with open(f'{self.dir}/log/server.log') as f:
                return ''.join(f.readlines()[-20:])
        except OSError:
            return ''


def parse_attrs(b):
    """(kind, attrs dict, error)."""
    lang, rest = b.lang, b.rest
    m = re.search(r'(?:^|\s)norun(:?)(.*)$', rest)
    if m:
        reason = m.group(2).strip()
        if not m.group(1) or not reason:
            return 'norun', {}, f'`{lang} norun` needs a reason: ```{lang} norun: WHY'
        return 'norun', {'reason': reason}, None
    m = re.fullmatch(r'from=(\S+)', rest)
    if m:
        return 'from', {'path': m.group(1)}, None
    if lang == 'text':
        m = re.fullmatch(r'output:\s*(.+)', rest)
        if m:
            return 'text-output', {'cmd': m.group(1)}, None
        return None, {}, '```text must be `text from=PATH` or `text output: COMMAND`'
    if lang == '':
        return None, {}, ('a block without a language: say what it is (```sh, ```console, '
                          '```text output: CMD, ```ini from=PATH, ```LANG norun: WHY, ...)')
    simple = {'sh': 'sh', 'console': 'console', 'python': 'python', 'js': 'js', 'mjs': 'mjs',
              'yaml': 'yaml', 'json': 'json'}
    if lang in simple and not rest:
        return simple[lang], {}, None
    if lang == 'c' and rest in ('', 'compile'):
        return ('c-compile' if rest else 'c'), {}, None
    if lang == 'sql' and rest in ('postgres', 'sqlite'):
        return 'sql-' + rest, {}, None
    if lang == 'sql':
        return None, {}, '```sql must say where it runs: ```sql postgres or ```sql sqlite'
    hint = {'bash': 'sh', 'shell': 'sh', 'javascript': 'js', 'py': 'python', 'python3': 'python'}.get(lang)
    if hint:
        return None, {}, f'```{lang}: write ```{hint}'
    return None, {}, (f'```{b.info}: not a kind the test runs; give it from=PATH or '
                      f'norun: WHY, or use one of sh, console, c, python, js, mjs, sql postgres, '
                      f'sql sqlite, yaml, json, text')


SQLITE_LOAD = [re.compile(r'^\s*\.load\s+(\S+)', re.M),
               re.compile(r'load_extension\(\s*[\'"]([^\'"]+)[\'"]'),
               re.compile(r'sqlite3\b[^\n]*["\']\.load\s+([^\s"\']+)')]


class DocRun:
    def __init__(self, tools, doc, tmp, report, pg):
        self.t = tools
        self.doc = doc
        self.report = report
        self.pg = pg
        self.tmp = tmp
        self.token = secrets.token_hex(8)
        name = re.sub(r'[^a-z0-9]+', '_', os.path.splitext(os.path.basename(doc))[0].lower())
        self.scratch = os.path.join(tmp, 'scratch-' + name)
        self.home = os.path.join(tmp, 'home-' + name)
        self.gen = os.path.join(tmp, 'blocks-' + name)
        self.dbname = 'doc_' + name
        for d in (self.scratch, self.home, self.gen):
            os.makedirs(d)
            os.chmod(d, 0o755)
        self.groups = []
        self.n = 0
        self.db_ready = None

    # -- environment
    def env(self):
        t = self.t
        e = {k: v for k, v in os.environ.items()
             if not k.startswith(('TOID_', 'PG', 'NODE_', 'PYTHON')) and k not in ('MAKEFLAGS', 'MFLAGS')}
        path = [os.path.dirname(p) for p in (t.toid, t.toidd) if p]
        e['PATH'] = ':'.join(path + [os.environ.get('PATH', '/usr/bin:/bin')])
        e['TOID_SRC'] = t.src
        e['HOME'] = self.home
        e['TMPDIR'] = self.tmp_sub('tmp')
        e['TZ'] = 'UTC'
        e['LC_ALL'] = 'C.UTF-8'
        e['NO_COLOR'] = '1'
        e['TERM'] = 'dumb'
        e['PYTHONDONTWRITEBYTECODE'] = '1'
        e.update(self.claim_env)
        if t.python_lib:
            e['PYTHONPATH'] = t.python_lib
        if t.node_addon:
            e['TOID_NODE_ADDON'] = t.node_addon
        if self.pg.started:
            e.update(self.pg.env)
            e['PGDATABASE'] = self.dbname
        e[TOKEN_VAR] = self.token
        return e

    def tmp_sub(self, name):
        p = os.path.join(self.tmp, name)
        os.makedirs(p, exist_ok=True)
        os.chmod(p, 0o1777)
        return p

    @property
    def claim_env(self):
        return self._claim_env

    def set_claim_env(self, env):
        self._claim_env = env

    # -- processes
    def run(self, argv, stdin_file=None, timeout=None, cwd=None):
        """Runs argv in its own process group with output to files (a
        background child keeping them open cannot hang us). Returns (rc,
        stdout, stderr); rc None on timeout."""
        self.n += 1
        out = os.path.join(self.gen, f'{self.n}.out')
        err = os.path.join(self.gen, f'{self.n}.err')
        with open(out, 'wb') as fo, open(err, 'wb') as fe, \
                open(stdin_file or os.devnull, 'rb') as fi:
            p = subprocess.Popen(argv, stdin=fi, stdout=fo, stderr=fe, cwd=cwd or self.scratch,
                                 env=self.env(), start_new_session=True)
            self.groups.append(p.pid)
            try:
                rc = p.wait(timeout=timeout or self.t.block_timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                rc = None
        with open(out, encoding='utf-8', errors='replace') as f:
            o = f.read()
        with open(err, encoding='utf-8', errors='replace') as f:
            e = f.read()
        return rc, o, e

    def write(self, name, text):
        p = os.path.join(self.gen, name)
        with open(p, 'w') as f:
            f.write(text)
        return p

    def cleanup(self):
        left = kill_all(self.token, self.groups)
        if left:
            print(f'{self.doc}: killed {len(left)} process(es) left running by its blocks with SIGKILL '
                  f'(they ignored SIGTERM)')

    # -- SQLite paths
    def prepare_sqlite(self, blocks):
        """Every relative path a block loads the extension from (.load X,
        load_extension('X')) made to lead to the built toid.so in the
        scratch directory."""
        paths = set()
        for b in blocks:
            for rx in SQLITE_LOAD:
                for m in rx.finditer(b.text):
                    paths.add(m.group(1))
        self.sqlite_problems = {}
        for p in sorted(paths):
            if os.path.isabs(p):
                self.sqlite_problems[p] = (f'loads the extension from the absolute path {p}, which the '
                                           f'test cannot provide: use a relative path (.load ./toid)')
                continue
            if not self.t.sqlite_ext:
                continue
            target = p if os.path.splitext(p)[1] else p + '.so'
            dest = os.path.normpath(os.path.join(self.scratch, target))
            if not dest.startswith(self.scratch + os.sep):
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if not os.path.lexists(dest):
                os.symlink(self.t.sqlite_ext, dest)

    def prepare_node(self):
        nm = os.path.join(self.scratch, 'node_modules')
        os.makedirs(nm, exist_ok=True)
        if not os.path.lexists(os.path.join(nm, 'toid')):
            os.symlink(self.t.node_src, os.path.join(nm, 'toid'))

    # -- blocks
    def check(self, b):
        what = f'{b.where()}: {b.info or "(no language)"}'
        kind, attrs, err = parse_attrs(b)
        if err:
            self.report.fail(what, err)
            return
        if self.t.kinds and kind not in self.t.kinds:
            self.report.skip(what, f'--kinds leaves {kind} out')
            return
        getattr(self, 'do_' + kind.replace('-', '_'))(b, attrs, what)

    def do_norun(self, b, a, what):
        self.report.listed_norun(what, a['reason'])

    def _fail_run(self, what, rc, out, err, label='exit status'):
        detail = 'timed out' if rc is None else f'{label} {rc}'
        text = (out + ('\n' if out and not out.endswith('\n') else '') + err).rstrip()
        if len(text) > 6000:     # the start (a compiler's first error) and the end
            text = text[:3000] + '\n[...]\n' + text[-3000:]
        self.report.fail(what, detail + (('\n' + text) if text else ''))

    def do_sh(self, b, a, what):
        f = self.write(f'b{b.line}.sh', b.text)
        rc, out, err = self.run(['bash', '-euo', 'pipefail', f])
        if rc == 0:
            self.report.ok(what)
        else:
            self._fail_run(what, rc, out, err)

    def console_commands(self, b):
        cmds = []
        cur = None
        lines = b.text.split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        i = 0
        while i < len(lines):
            l = lines[i]
            if l.startswith('$ ') or l == '$':
                cmd = [l[2:]]
                line = b.line + 1 + i
                while cmd[-1].endswith('\\') and i + 1 < len(lines):
                    i += 1
                    cmd.append(lines[i])
                cur = {'cmd': '\n'.join(cmd), 'line': line, 'expect': []}
                cmds.append(cur)
            elif cur is None:
                if l.strip():
                    return None, f'line {b.line + 1 + i}: text before the first `$ ` command: {l!r}'
            else:
                cur['expect'].append(l)
            i += 1
        if not cmds:
            return None, 'a console block without a `$ ` command'
        for c in cmds:
            c['rc'] = 0
            if c['expect']:
                m = re.fullmatch(r'\[exit (\d+)\]', c['expect'][-1])
                if m:
                    c['rc'] = int(m.group(1))
                    c['expect'] = c['expect'][:-1]
        return cmds, None

    def run_console(self, cmds):
        """The commands in one bash (a terminal session: cd and variables
        carry over), stdout and stderr together, each command's output and
        status cut apart by a marker. Returns a list of (rc, output) or an
        error text."""
        mark = '@@toid-docs-' + secrets.token_hex(6) + '@@'
        script = ['set -o pipefail', f'__m={shlex.quote(mark)}']
        for i, c in enumerate(cmds):
            script.append(f'eval {shlex.quote(c["cmd"])}')
            script.append(f'printf "%s%d %d\\n" "$__m" {i} "$?"')
        f = self.write(f'c{cmds[0]["line"]}.sh', '\n'.join(script) + '\n')
        rc, out, err = self.run(['bash', '-c', f'exec 2>&1; . {shlex.quote(f)}'])
        results = []
        rest = out
        for i in range(len(cmds)):
            m = re.search(re.escape(mark) + str(i) + r' (\d+)\n', rest)
            if not m:
                results.append((None, rest))
                break
            results.append((int(m.group(1)), rest[:m.start()]))
            rest = rest[m.end():]
        return results, rc, rest

    def do_console(self, b, a, what):
        cmds, err = self.console_commands(b)
        if err:
            self.report.fail(what, err)
            return
        results, rc, trailing = self.run_console(cmds)
        problems = []
        for c, (got_rc, out) in zip(cmds, results):
            actual = split_lines(out)
            head = f'line {c["line"]}: $ {c["cmd"]}'
            if got_rc is None:
                problems.append(f'{head}\n  the shell ended before this command finished '
                                f'({"timed out" if rc is None else f"exit status {rc}"}); its output:\n' +
                                '\n'.join('  ' + x for x in actual))
                break
            bad = []
            if got_rc != c['rc']:
                bad.append(f'exit status {got_rc}, expected {c["rc"]}')
            if not output_matches(c['expect'], actual):
                bad.append('output differs:\n' + diff(c['expect'], actual))
            if bad:
                problems.append(head + '\n' + '\n'.join(bad))
        if len(results) < len(cmds) and not problems:
            problems.append('the shell ended early')
        if problems:
            self.report.fail(what, '\n'.join(problems))
        else:
            self.report.ok(what, f'{len(cmds)} command{"s" if len(cmds) != 1 else ""}')

    def do_text_output(self, b, a, what):
        rc, out, err = self.run(['bash', '-c', 'set -o pipefail; exec 2>&1; eval "$1"', 'sh', a['cmd']])
        expected = split_lines(b.text)
        actual = split_lines(out)
        if rc != 0:
            self.report.fail(what, f'`{a["cmd"]}`: exit status {rc}\n' + out[-3000:])
        elif expected != actual:
            self.report.fail(what, f'the block is not `{a["cmd"]}`\'s output:\n' + diff(expected, actual))
        else:
            self.report.ok(what)

    def do_from(self, b, a, what):
        path = os.path.normpath(os.path.join(self.t.root, a['path']))
        if not os.path.isfile(path):
            self.report.fail(what, f'from={a["path"]}: no such file in the repository')
            return
        with open(path, encoding='utf-8', errors='replace') as f:
            src = f.read()
        lines = split_lines(b.text)
        if not lines:
            self.report.fail(what, 'an empty block')
            return
        how = contained(lines, split_lines(src))
        if how:
            self.report.ok(what, how)
        else:
            near = difflib.get_close_matches(lines[0], split_lines(src), 1, 0.5)
            hint = f'\nthe nearest line there to the block\'s first: {near[0]!r}' if near else ''
            self.report.fail(what, f'the block\'s text is not in {a["path"]} (verbatim: every line, '
                             f'in order, contiguous except at `...` lines; a common indentation '
                             f'may be removed){hint}')

    def do_yaml(self, b, a, what):
        try:
            import yaml
        except ImportError:
            yaml = None
        if yaml:
            try:
                list(yaml.safe_load_all(b.text))
            except yaml.YAMLError as e:
                self.report.fail(what, f'not valid YAML: {e}')
                return
            self.report.ok(what, 'parsed')
            return
        why = yaml_structure(b.text)
        if why:
            self.report.fail(what, why)
        else:
            self.report.ok(what, 'PyYAML not installed: structure checked only')

    def do_json(self, b, a, what):
        try:
            json.loads(b.text)
        except ValueError:
            try:        # JSON lines
                for l in b.text.splitlines():
                    if l.strip():
                        json.loads(l)
            except ValueError as e:
                self.report.fail(what, f'not JSON (nor JSON lines): {e}')
                return
        self.report.ok(what, 'parsed')

    def do_c(self, b, a, what, compile_only=False):
        t = self.t
        if not t.libtoid:
            self.report.skip(what, 'libtoid.a not given (--libtoid or --build)')
            return
        if not shutil.which(t.cc):
            self.report.skip(what, f'no C compiler ({t.cc})')
            return
        src = self.write(f'b{b.line}.c', b.text)
        exe = os.path.join(self.gen, f'b{b.line}')
        flags = [t.cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-I', t.include, '-I', t.claim_include]
        if compile_only:
            argv = flags + ['-c', src, '-o', exe + '.o']
        else:
            libs = [x for x in (t.claim_lib, t.libtoid) if x]
            argv = flags + [src, '-o', exe] + libs + ['-lpthread'] + t.claim_libs + ['-lm']
        rc, out, err = self.run(argv)
        if rc != 0:
            self._fail_run(what, rc, out, err, 'the compiler: exit status')
            return
        if compile_only:
            self.report.ok(what, 'compiled')
            return
        rc, out, err = self.run([exe])
        if rc == 0:
            self.report.ok(what)
        else:
            self._fail_run(what, rc, out, err)

    def do_c_compile(self, b, a, what):
        self.do_c(b, a, what, compile_only=True)

    def do_python(self, b, a, what):
        t = self.t
        if not t.python_lib:
            self.report.skip(what, 'the Python binding is not built (--python-lib)')
            return
        if b.text.lstrip().startswith('>>> '):
            f = self.write(f'b{b.line}.txt', b.text)
            runner = self.write(f'b{b.line}-doctest.py',
                                'import doctest, sys\n'
                                'r = doctest.testfile(sys.argv[1], module_relative=False, '
                                'optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)\n'
                                'sys.exit(1 if r.failed else 0)\n')
            rc, out, err = self.run([t.python, runner, f])
            note = 'doctest'
        else:
            f = self.write(f'b{b.line}.py', b.text)
            rc, out, err = self.run([t.python, f])
            note = ''
        if rc == 0:
            self.report.ok(what, note)
        else:
            self._fail_run(what, rc, out, err)

    def _node(self, b, what, ext):
        t = self.t
        if not t.node:
            self.report.skip(what, 'node is not installed')
            return
        if not t.node_addon:
            self.report.skip(what, 'the Node.js binding is not built (--node-addon)')
            return
        self.prepare_node()
        f = os.path.join(self.scratch, f'.toid-docs-b{b.line}.{ext}')
        with open(f, 'w') as fh:
            fh.write(b.text)
        rc, out, err = self.run([t.node, f])
        os.unlink(f)
        if rc == 0:
            self.report.ok(what)
        else:
            self._fail_run(what, rc, out, err)

    def do_js(self, b, a, what):
        self._node(b, what, 'cjs')

    def do_mjs(self, b, a, what):
        self._node(b, what, 'mjs')

    def do_sql_sqlite(self, b, a, what):
        if not shutil.which('sqlite3'):
            self.report.skip(what, 'sqlite3 is not installed')
            return
        if not self.t.sqlite_ext:
            self.report.skip(what, 'the SQLite extension is not built (--sqlite-ext)')
            return
        for p, why in self.sqlite_problems.items():
            if p in b.text:
                self.report.fail(what, why)
                return
        f = self.write(f'b{b.line}.sql', b.text)
        rc, out, err = self.run(['sqlite3', '-bail', ':memory:'], stdin_file=f)
        if rc == 0 and 'Error' not in err:
            self.report.ok(what)
        else:
            self._fail_run(what, rc, out, err)

    def do_sql_postgres(self, b, a, what):
        pg = self.pg
        pg.start()
        if pg.skip:
            self.report.skip(what, pg.skip)
            return
        if pg.error:
            self.report.fail(what, pg.error)
            return
        if self.db_ready is None:
            ok, err = pg.createdb(self.dbname)
            self.db_ready = ok
            if not ok:
                self.report.fail(what, 'createdb failed: ' + err)
                return
        f = self.write(f'b{b.line}.sql', b.text)
        rc, out, err = self.run([os.path.join(pg.bindir, 'psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1',
                                 '-d', self.dbname, '-f', f])
        if rc == 0:
            self.report.ok(what)
        else:
            if rc == 2:     # psql: the connection was lost
                err += '\n(server log, last lines:)\n' + pg.server_log_tail()
            self._fail_run(what, rc, out, err)


def contained(lines, src):
    """How the block's lines appear in src: '' when they do not."""
    segs = [[]]
    for l in lines:
        if l.strip() == '...':
            segs.append([])
        else:
            segs[-1].append(l)
    segs = [s for s in segs if s]
    for strip in (None, 'indent'):
        pos = 0
        ok = True
        for s in segs:
            found = -1
            for i in range(pos, len(src) - len(s) + 1):
                cand = src[i:i + len(s)]
                if strip is None:
                    hit = cand == s
                else:
                    ind = len(cand[0]) - len(cand[0].lstrip(' '))
                    hit = ind > 0 and all((c[:ind].strip() == '' and c[ind:] == x) or (c == '' and x == '')
                                          for c, x in zip(cand, s))
                if hit:
                    found = i
                    break
            if found < 0:
                ok = False
                break
            pos = found + len(s)
        if ok:
            return 'found verbatim' if strip is None else 'found, indented there'
    return ''


def yaml_structure(text):
    """A small check for when PyYAML is missing: no tabs in indentation,
    balanced brackets and quotes on each line, and every line a key, a list
    item, a comment or a continuation."""
    for n, l in enumerate(text.split('\n'), 1):
        if not l.strip() or l.lstrip().startswith('#'):
            continue
        if '\t' in l[:len(l) - len(l.lstrip())]:
            return f'line {n}: a tab in the indentation'
        body = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', '""', l)
        if body.count('"') % 2 or body.count('{') != body.count('}') or body.count('[') != body.count(']'):
            return f'line {n}: unbalanced quotes or brackets: {l!r}'
    return ''


# --------------------------------------------------------- namespaces

def lo_up():
    import fcntl
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack('16sh', fcntl.ioctl(s, 0x8913, struct.pack('16sh', b'lo', 0)))[1]
    fcntl.ioctl(s, 0x8914, struct.pack('16sh', b'lo', flags | 1))
    s.close()


def private_namespace(tmp, paths):
    """As root: re-run this script in a new mount and network namespace
    where /tmp is tmp (bind mount) and only a loopback exists, so that the
    documents' fixed ports (toidd's 8080 and 6380) and /tmp paths are
    private to this run. Returns the child's exit status, or None when the
    namespaces cannot be had (not root, no unshare)."""
    if os.geteuid() != 0 or not shutil.which('unshare') or os.environ.get('TOID_DOCS_NO_NAMESPACE'):
        return None
    probe = subprocess.run(['unshare', '--mount', '--net', '--propagation', 'private', 'true'],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    argv = ['unshare', '--mount', '--net', '--propagation', 'private', '--',
            sys.executable, os.path.abspath(__file__), '--inner', tmp] + sys.argv[1:]
    if any(p and (os.path.realpath(p) + '/').startswith('/tmp/') for p in paths):
        print('(the documents or the build are under /tmp: /tmp is not made private)', flush=True)
        argv[argv.index('--inner')] = '--inner-keep-tmp'
    return subprocess.call(argv)


# ------------------------------------------------------------------ main

def run_docs(tools, docs, report, tmp):
    claim_dir = os.path.join(tmp, 'registry')
    os.makedirs(claim_dir)
    if os.geteuid() == 0:
        # shared with the cluster's postgres user: the group's, setgid
        try:
            import grp
            os.chown(claim_dir, 0, grp.getgrnam('postgres').gr_gid)
        except KeyError:
            pass
        os.chmod(claim_dir, 0o2770)
    else:
        os.chmod(claim_dir, 0o700)
    claim_env = {'TOID_CLAIM': f'local={claim_dir}',
                 'TOID_CLAIM_CONF': os.path.join(tmp, 'no-claim.conf')}
    pg = PgCluster(tools, tmp, claim_env)
    try:
        for doc in docs:
            path = os.path.join(tools.root, doc)
            try:
                with open(path, encoding='utf-8') as f:
                    text = f.read()
            except OSError as e:
                report.fail(doc, str(e))
                continue
            blocks, errors = parse_blocks(doc, text)
            for e in errors:
                report.fail(e)
            print(f'== {doc}: {len(blocks)} blocks', flush=True)
            r = DocRun(tools, doc, tmp, report, pg)
            r.set_claim_env(claim_env)
            r.prepare_sqlite(blocks)
            try:
                for b in blocks:
                    r.check(b)
            finally:
                r.cleanup()
    finally:
        pg.stop()


def selftest(args):
    """Each fixture under fixtures/pass must pass and each under
    fixtures/fail must fail, its output containing the text of the
    fixture's first line `<!-- expect: TEXT -->` (one per line)."""
    fx = os.path.join(HERE, 'fixtures')
    passthrough = [f'--pg-make-arg={x}' for x in (args.pg_make_arg or [])]
    if args.claim_libs is not None:
        passthrough.append(f'--claim-libs={args.claim_libs}')
    for k in ('src', 'build', 'pg_build', 'toid', 'toidd', 'sqlite_ext', 'python_lib', 'python', 'node', 'node_addon',
              'libtoid', 'claim_lib', 'cc'):
        v = getattr(args, k)
        if v:
            passthrough += [f'--{k.replace("_", "-")}', v]
    failures = 0
    total = 0
    for outcome in ('pass', 'fail'):
        d = os.path.join(fx, outcome)
        for name in sorted(os.listdir(d)):
            if not name.endswith('.md'):
                continue
            total += 1
            with open(os.path.join(d, name)) as f:
                text = f.read()
            expects = re.findall(r'<!-- expect: (.*?) -->', text)
            mode = ['--links'] if '<!-- links -->' in text else []
            argv = [sys.executable, os.path.abspath(__file__), '--root', fx] + passthrough + mode + \
                [f'{outcome}/{name}']
            r = subprocess.run(argv, capture_output=True, text=True)
            out = r.stdout + r.stderr
            last = split_lines(r.stdout)[-1] if r.stdout.strip() else ''
            problems = []
            m = re.fullmatch(r'(\d+) passed, (\d+) failed', last)
            if not m:
                problems.append(f'the last line is not "N passed, N failed": {last!r}')
            elif outcome == 'pass':
                if r.returncode != 0 or m.group(2) != '0' or m.group(1) == '0':
                    problems.append(f'expected to pass with something checked: exit {r.returncode}, {last}')
            else:
                if r.returncode != 1 or m.group(2) == '0':
                    problems.append(f'expected to fail: exit {r.returncode}, {last}')
            for e in expects:
                if e not in out:
                    problems.append(f'the output does not contain {e!r}')
            if problems:
                failures += 1
                print(f'fixtures/{outcome}/{name}: FAIL')
                for p in problems:
                    print(f'    {p}')
                for l in out.rstrip().split('\n'):
                    print(f'    | {l}')
            else:
                print(f'fixtures/{outcome}/{name}: ok ({last})')
    print(f'{total - failures} passed, {failures} failed')
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('docs', nargs='*')
    ap.add_argument('--root', default=DEFAULT_ROOT, help='the checkout (documents are relative to it)')
    ap.add_argument('--src', default=DEFAULT_ROOT, help='the checkout whose build is tested '
                    '(include/, bindings/node; $TOID_SRC in blocks); default: this script\'s')
    ap.add_argument('--build', help='the build directory (default paths of the tools below)')
    ap.add_argument('--toid')
    ap.add_argument('--toidd')
    ap.add_argument('--sqlite-ext')
    ap.add_argument('--python-lib', help='directory with the built toid package')
    ap.add_argument('--python', help='the Python the binding is built for')
    ap.add_argument('--node')
    ap.add_argument('--node-addon')
    ap.add_argument('--libtoid')
    ap.add_argument('--claim-lib')
    ap.add_argument('--claim-libs', help='what the claim library links beside it')
    ap.add_argument('--cc')
    ap.add_argument('--pg-build', help='build directory of the PostgreSQL extension')
    ap.add_argument('--pg-make-arg', action='append', help='make argument for its install (repeat)')
    ap.add_argument('--block-timeout', type=float, default=180)
    ap.add_argument('--kinds', help='run only these kinds (comma-separated: sh, console, c, c-compile, '
                    'python, js, mjs, sql-postgres, sql-sqlite, yaml, json, text-output, from, norun); '
                    'the others are skipped')
    ap.add_argument('--links', action='store_true')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--selftest', action='store_true')
    ap.add_argument('--strict', action='store_true', help='a skipped block fails')
    ap.add_argument('--inner', help=argparse.SUPPRESS)
    ap.add_argument('--inner-keep-tmp', help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.selftest:
        return selftest(args)

    root = os.path.abspath(args.root)
    if args.links:
        docs = args.docs or (['README.md'] + sorted(
            os.path.join('docs', f) for f in os.listdir(os.path.join(root, 'docs')) if f.endswith('.md')))
        report = Report()
        check_links(root, docs, report)
        report.summary()
        return 1 if report.failed else 0

    if not args.docs:
        ap.error('name the documents to run (or --links, --selftest)')

    if args.list:
        for doc in args.docs:
            with open(os.path.join(root, doc), encoding='utf-8') as f:
                blocks, errors = parse_blocks(doc, f.read())
            for e in errors:
                print(e)
            for b in blocks:
                kind, attrs, err = parse_attrs(b)
                print(f'{b.where()}: {kind or "?"}{(" " + json.dumps(attrs)) if attrs else ""}'
                      f'{("  ERROR: " + err) if err else ""}')
        return 0

    if args.inner or args.inner_keep_tmp:
        tmp = args.inner or args.inner_keep_tmp
        if args.inner:
            subprocess.run(['mount', '--bind', tmp, '/tmp'], check=True)
            tmp = '/tmp'
        lo_up()
    else:
        tmp = tempfile.mkdtemp(prefix='toid-docs.')
        os.chmod(tmp, 0o1777 if os.geteuid() == 0 else 0o755)
        try:
            t = Tools(args)
            rc = private_namespace(tmp, [t.root, t.src, t.build, t.toid, t.toidd, t.sqlite_ext, t.python_lib,
                                         t.node_addon, t.libtoid, t.claim_lib, t.pg_build])
            if rc is not None:
                return rc
            print('(no private network and /tmp: not root or no unshare; fixed ports are shared)')
            tools = Tools(args)
            report = Report()
            run_docs(tools, args.docs, report, tmp)
            report.summary()
            return finish(report, args)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    tools = Tools(args)
    report = Report()
    run_docs(tools, args.docs, report, tmp)
    report.summary()
    return finish(report, args)


def finish(report, args):
    if report.failed:
        return 1
    if report.skipped:
        return 1 if args.strict else EXIT_SKIP
    return 0


if __name__ == '__main__':
    sys.exit(main())
