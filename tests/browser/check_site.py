#!/usr/bin/env python3
"""Opens the generated report site in headless Chromium as a reader would.

Drives Debian's chromium directly over the DevTools protocol on a pipe
(--remote-debugging-pipe), so nothing beyond python3 and chromium is needed.
From index.html it clicks (real mouse events) the link to a system's summary,
from the summary the link to a candidate page, from there the link to the same
candidate on the other system and the breadcrumb back to the index. It requires
tables and an inline SVG chart on the summary and candidate pages, the six
report sections in order, markup from a KAT log shown as text, no script
element anywhere, then visits every page the site links to and requires that
each loads, that every local link points at an existing file, and that no page
logs a console error or requests anything outside the site folder.

At a glance, in a 1400 px wide window: the summary, candidate and method pages
and the comparison scroll neither the page nor any table sideways; the
summary's KAT cells, names and figures each stay on one line; the summary's
ratio chart draws one point per ratio of its table and one interval bar per
ratio with an interval, each bar around its point, on a log axis (tick labels
at heights proportional to the log of their values); the method page shows no
record field names; the comparison linked from the index (the site is
generated with `report --compare`) draws its rows with their interval bars.
Screenshots of those pages are saved into the artifact folder.

Usage: check_site.py SITE_DIR ARTIFACT_DIR [CHROMIUM]
Exit status: 0 all checks passed, 1 a check failed, 77 chromium missing
(1 then under CI=true: in CI nothing may be skipped).
"""
import base64
import fcntl
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from urllib.parse import unquote, urldefrag, urljoin, urlparse

WAIT_S = 30
WIDTH = 1400
SECTIONS = ['1. Basic information', '2. Assessment environment',
            '3. Functional testing (KAT)', '4. Performance',
            '5. Resource consumption', '6. Constant-time evidence',
            '7. Raw evidence index']


class Browser:
    """One headless chromium with one page, spoken to over fd 3 / fd 4."""

    def __init__(self, exe, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child_fds():
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [exe, '--headless', '--remote-debugging-pipe', '--no-sandbox',
                '--disable-gpu', '--no-first-run', '--no-default-browser-check',
                '--disable-background-networking', '--disable-component-update',
                '--disable-sync', '--disable-extensions', '--disable-quic',
                '--hide-scrollbars', '--user-data-dir=' + profile, 'about:blank']
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     preexec_fn=child_fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise RuntimeError('chromium closed the pipe')
                self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b'\0')
        deadline = time.monotonic() + WAIT_S
        while True:
            answer = self._read_message(deadline)
            if answer.get('id') == self.next_id:
                if 'error' in answer:
                    raise RuntimeError(f'{method}: {answer["error"]}')
                return answer.get('result', {})
            if 'method' in answer:
                self.events.append(answer)

    def wait_event(self, method, since):
        """Waits for `method` among the events that arrived after index `since`."""
        deadline = time.monotonic() + WAIT_S
        while True:
            for ev in self.events[since:]:
                if ev['method'] == method:
                    return ev
            msg = self._read_message(deadline)
            if 'method' in msg:
                self.events.append(msg)

    def open_page(self):
        target = self.send('Target.createTarget', {'url': 'about:blank'}, False)
        attached = self.send('Target.attachToTarget',
                             {'targetId': target['targetId'], 'flatten': True}, False)
        self.session = attached['sessionId']
        for domain in ('Page', 'Runtime', 'Network', 'Log'):
            self.send(domain + '.enable')
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': WIDTH, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False})

    def js(self, expr):
        res = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True})
        if 'exceptionDetails' in res:
            raise RuntimeError(f'script failed: {expr}: {res["exceptionDetails"]}')
        return res['result'].get('value')

    def goto(self, url):
        mark = len(self.events)
        self.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired', mark)

    def click(self, selector):
        """Clicks the first element matching `selector` with the mouse; waits for the load."""
        rect = self.js('(() => { const e = document.querySelector(%s); if (!e) return null;'
                       ' e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();'
                       ' return [r.x + r.width / 2, r.y + r.height / 2]; })()' % json.dumps(selector))
        if rect is None:
            raise RuntimeError(f'no element {selector} on {self.url()}')
        mark = len(self.events)
        for kind in ('mouseMoved', 'mousePressed', 'mouseReleased'):
            self.send('Input.dispatchMouseEvent', {'type': kind, 'x': rect[0], 'y': rect[1],
                                                   'button': 'left', 'clickCount': 1})
        self.wait_event('Page.loadEventFired', mark)

    def url(self):
        return self.js('location.href')

    def screenshot(self, path, full):
        params = {'format': 'png'}
        if full:
            size = self.send('Page.getLayoutMetrics')['cssContentSize']
            params['clip'] = {'x': 0, 'y': 0, 'width': size['width'],
                              'height': size['height'], 'scale': 1}
            params['captureBeyondViewport'] = True
        data = self.send('Page.captureScreenshot', params)['data']
        with open(path, 'wb') as fp:
            fp.write(base64.b64decode(data))

    def close(self):
        try:
            self.send('Browser.close', session=False)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f'FAIL: {what}', file=sys.stderr)


def page_facts(b):
    return b.js('''(() => ({
        title: document.title,
        tables: document.querySelectorAll('main table').length,
        rows: document.querySelectorAll('main table tr').length,
        svgs: document.querySelectorAll('main svg').length,
        scripts: document.querySelectorAll('script').length,
        chart: (() => { const s = document.querySelector('main svg');
                        if (!s) return null; const r = s.getBoundingClientRect();
                        return [r.width, r.height]; })(),
        h2: [...document.querySelectorAll('main h2')].map(e => e.innerText),
        text: document.querySelector('main') ? document.querySelector('main').innerText : '',
        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
        overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
        width: window.innerWidth,
        scrolling_tables: [...document.querySelectorAll('main table')]
            .filter(t => t.scrollWidth > t.clientWidth + 1)
            .map(t => [t.scrollWidth, t.clientWidth, t.innerText.slice(0, 60)]),
    }))()''')


def wrapped_cells(b, table_index):
    """Cells of the TABLE_INDEX-th table of main whose text takes more than one line."""
    return b.js('''(() => {
        const t = document.querySelectorAll('main table')[%d];
        if (!t) return null;
        const out = [];
        for (const td of t.querySelectorAll('td, th')) {
            const r = document.createRange();
            r.selectNodeContents(td);
            const tops = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                 .map(x => Math.round(x.top)));
            if (tops.size > 1) out.push(td.innerText);
        }
        return out;
    })()''' % table_index)


def broken_words(b):
    """Words of the main tables' cells (names, options, sizes: any run of
    characters without a space) that the browser laid out over more than
    one line, other than at a hyphen after a letter or digit (time-/failed,
    an ordinary line break; not -/-full, nor SHA3_25/6)."""
    return b.js('''(() => {
        const out = [];
        for (const td of document.querySelectorAll('main table td, main table th')) {
            const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
            for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                const re = /\\S+/g;
                let m;
                while ((m = re.exec(n.data)) !== null) {
                    const r = document.createRange();
                    r.setStart(n, m.index);
                    r.setEnd(n, m.index + m[0].length);
                    const tops = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                         .map(x => Math.round(x.top)));
                    if (tops.size < 2)
                        continue;
                    const top = i => { const c = document.createRange();
                                       c.setStart(n, m.index + i);
                                       c.setEnd(n, m.index + i + 1);
                                       return Math.round(c.getBoundingClientRect().top); };
                    const w = m[0];
                    for (let i = 1; i < w.length; i++) {
                        if (top(i) === top(i - 1))
                            continue;
                        if (!(w[i - 1] === '-' && i > 1 && /[A-Za-z0-9]/.test(w[i - 2])))
                            out.push(w);
                        break;
                    }
                }
            }
        }
        return out;
    })()''')


def chart_facts(b, svg_index):
    """Points, interval bars (each with whether it spans a point at its x), the
    y-axis tick labels with their heights, and the y-axis label of a main svg."""
    return b.js('''(() => {
        const s = document.querySelectorAll('main svg')[%d];
        if (!s) return null;
        const circles = [...s.querySelectorAll('circle')].map(c =>
            [parseFloat(c.getAttribute('cx')), parseFloat(c.getAttribute('cy'))]);
        const bars = [...s.querySelectorAll('path.interval')].map(p => {
            const bb = p.getBBox();
            const x = bb.x + bb.width / 2;
            const around = circles.some(c => Math.abs(c[0] - x) < 0.6 &&
                                             c[1] >= bb.y - 0.6 && c[1] <= bb.y + bb.height + 0.6);
            return [bb.height, around];
        });
        const ticks = [...s.querySelectorAll('text[text-anchor="end"]')]
            .map(t => [parseFloat(t.textContent), parseFloat(t.getAttribute('y'))])
            .filter(t => isFinite(t[0]));
        const label = [...s.querySelectorAll('text[transform*="rotate"]')]
            .map(t => t.textContent);
        const drawn = s.getBoundingClientRect();
        return {circles: circles.length, bars: bars, ticks: ticks, labels: label,
                reference: s.querySelectorAll('line.reference').length,
                size: [drawn.width, drawn.height]};
    })()''' % svg_index)


def table_cells(b, table_index):
    """The text of every data cell of the TABLE_INDEX-th table, row by row."""
    return b.js('''(() => {
        const t = document.querySelectorAll('main table')[%d];
        return t ? [...t.querySelectorAll('tbody tr')].map(r =>
            [...r.querySelectorAll('td')].map(td => td.innerText)) : null;
    })()''' % table_index)


def log_axis(ticks):
    """True when the tick labels' heights are linear in the log of their values."""
    ticks = [t for t in ticks if t[0] > 0]
    if len(ticks) < 3:
        return False
    (v0, y0), (v1, y1) = ticks[0], ticks[-1]
    if v0 == v1:
        return False
    per = (y1 - y0) / (math.log10(v1) - math.log10(v0))
    return all(abs(y - (y0 + per * (math.log10(v) - math.log10(v0)))) < 1.0 for v, y in ticks)


def check_chart(c, label, chart, points, bars):
    c.check(chart is not None, f'{label}: chart present')
    if chart is None:
        return
    c.check(chart['circles'] == points,
            f'{label}: {chart["circles"]} points drawn, the table has {points} figures')
    c.check(len(chart['bars']) == bars,
            f'{label}: {len(chart["bars"])} interval bars drawn, the table has {bars} intervals')
    c.check(bars > 0 and all(h > 0 and around for h, around in chart['bars']),
            f'{label}: every interval bar has a height and spans its point')
    c.check(any('log scale' in t for t in chart['labels']),
            f'{label}: value axis labelled log scale ({chart["labels"]})')
    c.check(log_axis(chart['ticks']), f'{label}: log axis (ticks {chart["ticks"]})')
    c.check(chart['reference'] == 1, f'{label}: reference line at 1')
    print(f'{label}: {chart["circles"]} points, {len(chart["bars"])} interval bars, '
          f'{len(chart["ticks"])} log ticks')


def inspect(c, b, label, site_url, min_tables):
    f = page_facts(b)
    c.check('hashbench' in f['title'], f'{label}: title {f["title"]!r}')
    c.check(f['tables'] >= min_tables, f'{label}: {f["tables"]} tables, want >= {min_tables}')
    c.check(f['rows'] > f['tables'], f'{label}: tables have rows')
    c.check(f['svgs'] >= 1, f'{label}: inline SVG chart present ({f["svgs"]})')
    c.check(f['scripts'] == 0, f'{label}: no script element ({f["scripts"]})')
    c.check(bool(f['chart']) and f['chart'][0] > 300 and f['chart'][1] > 200,
            f'{label}: chart drawn at a readable size ({f["chart"]})')
    c.check(not f['overflow'], f'{label}: page fits the window width')
    c.check(f['width'] == WIDTH, f'{label}: window {f["width"]} px wide')
    c.check(not f['scrolling_tables'], f'{label}: tables scroll sideways: {f["scrolling_tables"]}')
    broken = broken_words(b)
    c.check(not broken, f'{label}: words broken across lines in tables: {broken[:12]}')
    print(f'{label}: {b.url()[len(site_url):]}: {f["tables"]} tables, {f["svgs"]} svg')
    return f


def main():
    if len(sys.argv) < 3:
        print('usage: check_site.py SITE_DIR ARTIFACT_DIR [CHROMIUM]', file=sys.stderr)
        return 2
    site = os.path.realpath(sys.argv[1])
    artifacts = sys.argv[2]
    exe = sys.argv[3] if len(sys.argv) > 3 else (shutil.which('chromium') or '/usr/bin/chromium')
    if not os.access(exe, os.X_OK):
        if os.environ.get('CI') == 'true':
            print(f'browser test FAILED: {exe} missing under CI=true (apt-get install chromium)')
            return 1
        print(f'browser test skipped: {exe} missing (apt-get install chromium)')
        return 77
    os.makedirs(artifacts, exist_ok=True)
    site_url = 'file://' + site + '/'
    c = Checks()
    profile = tempfile.mkdtemp(prefix='hb-chromium-')
    b = Browser(exe, profile)
    try:
        b.open_page()
        b.goto(site_url + 'index.html')
        c.check('hashbench results' in b.js('document.querySelector("h1").innerText'),
                'index: heading')

        b.click('main a[href="x86_1/summary.html"]')
        c.check(b.url() == site_url + 'x86_1/summary.html', 'followed the link to a summary')
        f = inspect(c, b, 'summary', site_url, 2)
        c.check('ratio to SM3 at 64 KiB' in f['text'], 'summary: ratio column at 64 KiB')
        c.check(re.search(r'\d× ±[\d.]+ %', f['text']) is not None,
                'summary: paired ratios with their interval')
        c.check("This host's speed drifted by" in f['text'], 'summary: drift warning')
        # at a glance: the two tables on one line per cell, the KAT cell short
        for t in (0, 1):
            w = wrapped_cells(b, t)
            c.check(w == [], f'summary: cells of table {t + 1} wrap: {w}')
        kat = [row[2] for row in table_cells(b, 0)]
        c.check(all(len(k) <= 16 for k in kat), f'summary: KAT cells compact: {kat}')
        c.check(any(re.fullmatch(r'MISMATCH \[\d+\]', k) for k in kat),
                f'summary: a failed KAT refers to its note: {kat}')
        ratios = [cell for row in table_cells(b, 1) for cell in row[2:]]
        check_chart(c, 'summary chart', chart_facts(b, 0),
                    sum('×' in r and 'baseline' not in r for r in ratios),
                    sum('±' in r for r in ratios))
        b.screenshot(os.path.join(artifacts, 'summary-first-screen.png'), False)
        b.screenshot(os.path.join(artifacts, 'summary.png'), True)

        b.click('main a[href="method.html"]')
        c.check(b.url() == site_url + 'x86_1/method.html', 'followed the link to the method page')
        f = page_facts(b)
        c.check("This host's speed drifted by" in f['text'], 'method: drift warning')
        c.check("The host's drift during the measurement" in f['h2'], 'method: drift section')
        c.check(f['svgs'] >= 1 and f['chart'] and f['chart'][0] > 300,
                f'method: drift chart rendered ({f["chart"]})')
        c.check('seconds since the start of the measurement' in b.js(
            'Array.from(document.querySelectorAll("svg")).map(s => s.textContent).join(" ")'),
                'method: the chart is the baseline speed against time')
        c.check(f['width'] == WIDTH and not f['overflow'] and not f['scrolling_tables'],
                f'method: no sideways scroll ({f["scrolling_tables"]})')
        fields = [k for k in ('mem_total_kb', 'cpu_model_source', 'scaling_max_khz',
                              'turbo_source', 'loadavg1') if k in f['text']]
        c.check(not fields, f'method: record field names shown: {fields}')
        c.check('unavailable on this host' in f['text'], 'method: says what the host lacks')
        b.screenshot(os.path.join(artifacts, 'method.png'), True)
        b.goto(site_url + 'x86_1/summary.html')

        b.click('main table a[href="Whirl.html"]')
        c.check(b.url() == site_url + 'x86_1/Whirl.html', 'followed the link to a candidate page')
        f = inspect(c, b, 'candidate', site_url, 6)
        c.check(f['h2'] == SECTIONS, f'candidate: sections {f["h2"]}')
        c.check('<script>alert(1)</script>' in f['text'],
                'candidate: markup in a KAT log shown as text')
        b.screenshot(os.path.join(artifacts, 'candidate.png'), True)
        # the stylesheet on a table whose first columns are squeezed by a wide
        # neighbour: names and options stay whole (a column is as wide as its
        # longest word); the option as the page marks it up
        option = b.js('''(() => { const o = [...document.querySelectorAll('main td')]
            .flatMap(td => [...td.querySelectorAll('*')])
            .find(e => e.innerText.startsWith('--'));
            return o ? o.outerHTML : null; })()''')
        c.check(option is not None, 'candidate: an option in a table cell, marked up')
        b.js('''(() => { const t = document.createElement('table');
            t.id = 'squeezed';
            t.innerHTML = '<tr><td>Garnet_512_Cap</td><td>SHA3_256</td><td>' + %s +
                          '</td><td>' + 'word '.repeat(600) + '</td></tr>';
            document.querySelector('main').appendChild(t); })()''' % json.dumps(option or '--full'))
        squeezed = broken_words(b)
        c.check(not squeezed, f'candidate: squeezed columns break words: {squeezed[:6]}')
        b.js("document.getElementById('squeezed').remove()")

        b.click('nav.systems a')
        c.check(b.url() == site_url + 'arm_1/Whirl.html', 'followed the system switch')
        inspect(c, b, 'other system', site_url, 6)
        b.click('nav.crumbs a')
        c.check(b.url() == site_url + 'index.html', 'breadcrumb back to the index')

        # the comparison given to the report, linked from the index
        b.click('main a[href^="compare/"]')
        c.check(re.fullmatch(re.escape(site_url) + r'compare/[^/]+/compare\.html', b.url())
                is not None, f'followed the link to the comparison ({b.url()})')
        f = page_facts(b)
        c.check(not f['overflow'] and not f['scrolling_tables'],
                f'comparison: no sideways scroll ({f["scrolling_tables"]})')
        rows = table_cells(b, 0) or []
        check_chart(c, 'comparison chart', chart_facts(b, 0), len(rows),
                    sum(1 for r in rows if re.search(r'\d – \d', r[7])))
        b.screenshot(os.path.join(artifacts, 'compare.png'), True)
        b.click('nav.crumbs a')
        c.check(b.url() == site_url + 'index.html', 'comparison: breadcrumb back to the index')

        # Every page the site links to: loads, no script, local links resolve.
        todo, seen = [site_url + 'index.html'], set()
        while todo:
            url = todo.pop(0)
            if url in seen:
                continue
            seen.add(url)
            b.goto(url)
            f = page_facts(b)
            c.check(f['scripts'] == 0, f'{url}: no script element')
            c.check(not f['overflow'], f'{url}: page fits the window width')
            c.check(not f['scrolling_tables'], f'{url}: tables scroll sideways: '
                                               f'{f["scrolling_tables"]}')
            for link in f['links']:
                target = urldefrag(urljoin(url, link))[0]
                if not target.startswith(site_url):
                    c.check(False, f'{url}: link leaves the site: {link}')
                    continue
                c.check(os.path.exists(unquote(urlparse(target).path)),
                        f'{url}: broken link {link}')
                if target.endswith('.html'):
                    todo.append(target)
        print(f'visited {len(seen)} pages')
        c.check(len(seen) >= 12, f'crawl reached {len(seen)} pages')
    except (RuntimeError, TimeoutError, OSError) as e:
        c.check(False, f'browsing failed: {e}')
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)

    problems = []
    outside = []
    for ev in b.events:
        p = ev.get('params', {})
        if ev['method'] == 'Network.requestWillBeSent':
            url = p['request']['url']
            if not url.startswith(site_url) and not url.startswith('data:'):
                outside.append(url)
        elif ev['method'] == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            problems.append('console: ' + ' '.join(str(a.get('value', a.get('description', '')))
                                                    for a in p.get('args', [])))
        elif ev['method'] == 'Runtime.exceptionThrown':
            problems.append('page error: ' + p['exceptionDetails'].get('text', ''))
        elif ev['method'] == 'Log.entryAdded' and p['entry'].get('level') == 'error':
            problems.append('log: ' + p['entry'].get('text', '') + ' ' + p['entry'].get('url', ''))
    for p in problems:
        print(p, file=sys.stderr)
    for u in outside:
        print(f'request outside the site: {u}', file=sys.stderr)
    c.check(not problems, 'no console error')
    c.check(not outside, 'no request outside the site')
    print(f'screenshots in {artifacts}')
    print(f'browser: {c.passed} passed, {c.failed} failed')
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
