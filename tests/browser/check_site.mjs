// Opens the generated report site in headless Chromium (Debian's chromium,
// driven through playwright-core) as a reader would: the index, a link to a
// system's summary, a link from there to a candidate page and the link to the
// same candidate on the other system. On each page it requires tables and an
// inline SVG chart, no script element, no console error and no request that
// leaves the site folder; it saves screenshots into the artifact folder.
// Usage: node check_site.mjs SITE_DIR ARTIFACT_DIR
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [siteArg, artifactArg] = process.argv.slice(2);
if (!siteArg || !artifactArg) {
  console.error('usage: node check_site.mjs SITE_DIR ARTIFACT_DIR');
  process.exit(2);
}
const site = fs.realpathSync(siteArg);
const siteUrl = pathToFileURL(site).href + '/';
fs.mkdirSync(artifactArg, { recursive: true });

let passed = 0;
let failed = 0;
function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.error(`FAIL: ${what}`);
  }
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hb-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const problems = [];
const outside = [];
context.on('request', (req) => {
  const url = req.url();
  if (!url.startsWith(siteUrl) && !url.startsWith('data:')) outside.push(url);
});
const page = context.pages()[0] || await context.newPage();
page.on('console', (msg) => {
  if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
});
page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));

async function inspect(label, minTables) {
  const title = await page.title();
  const tables = await page.locator('main table').count();
  const svgs = await page.locator('main svg').count();
  const scripts = await page.locator('script').count();
  const rows = await page.locator('main table tr').count();
  check(title.includes('hashbench'), `${label}: title '${title}'`);
  check(tables >= minTables, `${label}: ${tables} tables, want >= ${minTables}`);
  check(rows > tables, `${label}: tables have rows`);
  check(svgs >= 1, `${label}: inline SVG chart present (${svgs})`);
  check(scripts === 0, `${label}: no script element (${scripts})`);
  if (svgs) {
    const box = await page.locator('main svg').first().boundingBox();
    check(box && box.width > 300 && box.height > 200, `${label}: chart is drawn at a readable size`);
  }
  console.log(`${label}: ${page.url().slice(siteUrl.length)}: ${tables} tables, ${svgs} svg`);
}

try {
  await page.goto(siteUrl + 'index.html');
  check((await page.locator('h1').innerText()).includes('hashbench results'), 'index: heading');
  await page.locator('a[href="x86_1/summary.html"]').click();
  await page.waitForLoadState('load');
  check(page.url().endsWith('/x86_1/summary.html'), 'followed the link to a summary');
  await inspect('summary', 2);
  const summaryText = await page.locator('main').innerText();
  check(summaryText.includes('ratio to SM3 at 64 KiB'), 'summary: ratio column at 64 KiB');
  await page.screenshot({ path: path.join(artifactArg, 'summary.png'), fullPage: true });

  await page.locator('main table a[href="Whirl.html"]').first().click();
  await page.waitForLoadState('load');
  check(page.url().endsWith('/Whirl.html'), 'followed the link to a candidate page');
  await inspect('candidate', 6);
  const heads = await page.locator('main h2').allInnerTexts();
  const want = ['1 Basic information', '2 Assessment environment', '3 Functional testing (KAT)',
                '4 Performance', '5 Resource consumption', '7 Raw evidence index'];
  check(JSON.stringify(heads) === JSON.stringify(want), `candidate: sections ${JSON.stringify(heads)}`);
  const text = await page.locator('main').innerText();
  check(text.includes('<script>alert(1)</script>'), 'candidate: markup in a KAT log shown as text');
  await page.screenshot({ path: path.join(artifactArg, 'candidate.png'), fullPage: false });

  const other = page.locator('nav.systems a').first();
  check(await other.count() === 1, 'candidate: link to the same candidate on another system');
  await other.click();
  await page.waitForLoadState('load');
  check(page.url().endsWith('/arm_1/Whirl.html'), 'followed the system switch');
  await inspect('other system', 6);
  await page.locator('nav.crumbs a').first().click();
  await page.waitForLoadState('load');
  check(page.url() === siteUrl + 'index.html', 'breadcrumb back to the index');
} catch (e) {
  check(false, `browsing failed: ${e.message}`);
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}

for (const p of problems) console.error(p);
for (const u of outside) console.error(`request outside the site: ${u}`);
check(problems.length === 0, 'no console error');
check(outside.length === 0, 'no request outside the site');
console.log(`screenshots in ${artifactArg}`);
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
