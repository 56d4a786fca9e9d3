// The page as a web page (issue 14): the Content-Security-Policy that
// dist/index.html carries, no inline script, no user text rendered as HTML,
// and nothing sent anywhere but the page's own origin. First a check over the
// built files in dist/, then the page in Chromium, fed hostile text through
// every door a learner has (a lesson file, the console, a share link, the
// create-topic form), with every request and every policy violation recorded.
// See core/docs/web-security.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, cp, appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveDist, launch, screenshot, DIST } from './harness.mjs';

/** The policy, exactly as index.html states it (each source is justified there and in the docs). */
export const POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** http(s) URLs allowed in what the page loads: none is ever requested. XML
 * namespace names (Yew creates SVG and MathML elements with them) and the
 * documentation link in a comment of wasm-bindgen's generated module. */
const URL_ALLOWED = [
  /^http:\/\/www\.w3\.org\/(1998\/Math\/MathML|2000\/svg|1999\/xhtml|1999\/xlink|XML\/1998\/namespace|2000\/xmlns\/)/,
  /^https:\/\/developer\.mozilla\.org\//,
];

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** dist/index.html without its comments (which may mention anything). */
async function indexHtml() {
  return (await readFile(join(DIST, 'index.html'), 'utf8')).replace(/<!--[\s\S]*?-->/g, '');
}

test('dist/index.html carries exactly the policy, before anything it loads', async () => {
  const html = await indexHtml();
  const metas = [...html.matchAll(/<meta\b[^>]*http-equiv\s*=\s*"Content-Security-Policy"[^>]*>/gi)];
  assert.equal(metas.length, 1, 'one policy <meta>');
  const content = metas[0][0].match(/\bcontent\s*=\s*"([^"]*)"/i);
  assert.ok(content, 'the policy <meta> has a content attribute');
  assert.equal(content[1], POLICY);
  // A policy in a <meta> covers only what comes after it.
  const firstLoad = html.search(/<(link|script|style|base)\b/i);
  assert.ok(firstLoad > metas[0].index, 'the policy comes before the first <link>, <script>, <style> or <base>');
  assert.doesNotMatch(content[1], /'unsafe-inline'|'unsafe-eval'|\*|https?:|frame-ancestors/,
    "no 'unsafe-inline', no 'unsafe-eval', no wildcard or remote host (and no frame-ancestors, which a <meta> cannot set)");
});

test('dist/index.html has no inline script, no event-handler attribute, no inline style', async () => {
  const html = await indexHtml();
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)];
  assert.ok(scripts.length >= 1, 'the page is started by a script file');
  for (const [whole, attrs, body] of scripts) {
    assert.match(attrs, /\bsrc\s*=\s*"\/[^/"][^"]*"/, `a script with a same-origin src: ${whole}`);
    assert.match(attrs, /\bintegrity\s*=\s*"sha384-/, `a script with an integrity hash: ${whole}`);
    assert.equal(body.trim(), '', `no inline script content: ${whole}`);
  }
  assert.equal([...html.matchAll(/<script\b/gi)].length, scripts.length, 'every <script> is closed and counted');
  const tags = [...html.matchAll(/<[a-z][^>]*>/gi)].map((m) => m[0]);
  for (const tag of tags) {
    assert.doesNotMatch(tag, /\son[a-z]+\s*=/i, `no on*= attribute: ${tag}`);
    assert.doesNotMatch(tag, /\sstyle\s*=/i, `no style= attribute: ${tag}`);
    assert.doesNotMatch(tag, /^<style\b/i, 'no <style> element');
    assert.doesNotMatch(tag, /^<(iframe|object|embed|form|base)\b/i, `no ${tag}`);
    // Every address the document names is its own: a path on this origin, or the empty data: favicon.
    for (const [, , url] of tag.matchAll(/\s(src|href)\s*=\s*"([^"]*)"/gi)) {
      assert.ok((url.startsWith('/') && !url.startsWith('//')) || url === 'data:,', `same-origin address: ${tag}`);
    }
  }
  // The stylesheets, the preloads and the scripts carry trunk's integrity hashes.
  for (const tag of tags.filter((t) => /^<link\b/i.test(t) && /rel="(stylesheet|modulepreload|preload)"/i.test(t))) {
    assert.match(tag, /\bintegrity="sha384-[A-Za-z0-9+/=]+"/, `integrity on ${tag}`);
  }
});

test('no http(s) address in what the page loads, other than namespaces and documentation links', async () => {
  const files = (await readdir(DIST)).filter((f) => /\.(html|js|css|wasm)$/.test(f));
  assert.ok(files.some((f) => f.endsWith('.wasm')) && files.some((f) => f.endsWith('.js')), `${files}`);
  const found = [];
  for (const f of files) {
    const text = (await readFile(join(DIST, f))).toString('latin1');
    for (const [url] of text.matchAll(/https?:\/\/[^\s"'`<>()\\]*/g)) {
      if (!URL_ALLOWED.some((re) => re.test(url))) found.push(`${f}: ${url}`);
    }
  }
  assert.deepEqual(found, []);
});

const HOSTILE = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '<script>window.__pwned=2;alert(2)</script>',
  '"><svg onload="window.__pwned=3">',
];

/** A page that records policy violations, console errors and warnings about
 * the policy, page errors, dialogs and every request it makes. */
async function watchedPage() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const seen = { errors: [], policy: [], dialogs: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') seen.errors.push(m.text());
    if (/Content[- ]Security[- ]Policy|Trusted ?Type/i.test(m.text())) seen.policy.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  page.on('dialog', async (d) => { seen.dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => seen.requests.push(r.url()));
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__violations.push(`${e.effectiveDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  return { page, seen };
}

/** Everything that must hold after hostile text went in: it is text, nothing ran, nothing was refused. */
async function assertClean(page, seen, where) {
  const dom = await page.evaluate(() => {
    const all = [...document.querySelectorAll('*')];
    return {
      pwned: window.__pwned ?? null,
      violations: window.__violations,
      imgs: document.querySelectorAll('img, iframe, object, embed').length,
      svgWithHandler: all.filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).map((e) => e.outerHTML.slice(0, 120)),
      scripts: [...document.scripts].map((s) => s.src),
      styles: document.querySelectorAll('style').length,
    };
  });
  assert.equal(dom.pwned, null, `${where}: no injected script ran`);
  assert.deepEqual(dom.violations, [], `${where}: no policy violation`);
  assert.deepEqual(seen.policy, [], `${where}: no console message about the policy`);
  assert.equal(dom.imgs, 0, `${where}: no <img>/<iframe>/<object>/<embed> was created`);
  assert.deepEqual(dom.svgWithHandler, [], `${where}: no element carries an on* attribute`);
  assert.equal(dom.scripts.length, 1, `${where}: only the page's own boot script: ${dom.scripts}`);
  assert.equal(dom.styles, 0, `${where}: no <style> element`);
  assert.deepEqual(seen.dialogs, [], `${where}: no dialog opened`);
  assert.deepEqual(seen.errors, [], `${where}: no console or page error`);
  const origin = new URL(server.url).origin;
  const elsewhere = seen.requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
  assert.deepEqual(elsewhere, [], `${where}: every request went to the page's own origin`);
}

test('the page loads under its policy, asks only its own origin, and shows hostile text as text', async () => {
  const { page, seen } = await watchedPage();
  await page.goto(server.url);
  await page.locator('article.broker').first().waitFor();
  await assertClean(page, seen, 'load');
  // The policy the browser enforces is the one in the document.
  const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  assert.equal(meta, POLICY);
  assert.ok(seen.requests.some((u) => u.endsWith('_bg.wasm')), 'the .wasm came from the page origin');
  // The cluster is drawn with its stylesheets (not an unstyled page): the header is laid out.
  assert.notEqual(await page.locator('header').evaluate((e) => getComputedStyle(e).display), 'inline');

  // A built-in lesson (fetched from lessons/<id>.json on this origin), with its highlight.
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-picker .lesson-item').first().waitFor();
  await page.locator('.lesson-item[data-lesson="controller-race"] .lesson-open').click();
  if (await page.locator('.lesson-offer').count()) await page.locator('.lesson-offer button:not(.continue)').click();
  await page.locator('#p-lesson').waitFor();
  assert.ok(seen.requests.some((u) => u.endsWith('/lessons/controller-race.json')), 'the lesson came from the page origin');
  // The step's highlight is a constructed style sheet (no <style> element) and it applies.
  const outline = await page.locator('header .summary .who').evaluate((e) => getComputedStyle(e).outlineStyle);
  assert.equal(outline, 'solid', 'the lesson highlight applies under the policy');
  // Presentation mode folds panels through the same kind of sheet.
  await page.locator('#p-lesson .present-button').click();
  await page.locator('main.present').waitFor();
  assert.equal(await page.locator('#p-admin form').first().isVisible(), false, 'presentation mode folds the admin panel');
  await page.locator('#p-lesson .present-button').click();
  await page.locator('main:not(.present)').waitFor();
  await page.locator('#p-lesson [data-act="leave"]').click();
  await assertClean(page, seen, 'a built-in lesson');

  // The console: each hostile line is echoed as typed, as text.
  await page.locator('#console-line').focus();
  for (const line of HOSTILE) {
    const n = await page.locator('#p-console .console-entry').count();
    await page.locator('#console-line').fill(line);
    await page.keyboard.press('Enter');
    await page.locator('#p-console .console-entry').nth(n).waitFor();
    assert.ok((await page.locator('#p-console .console-entry').nth(n).innerText()).includes(line), `echoed as text: ${line}`);
  }
  await assertClean(page, seen, 'the console');

  // The create-topic form: Kafka refuses the name, and the message quotes it as text.
  await page.locator('main').focus();
  const create = page.locator('form[aria-label="Create a topic"]');
  await create.scrollIntoViewIfNeeded();
  await create.getByLabel('New topic name').fill(HOSTILE[0]);
  await create.getByRole('button', { name: 'create' }).click();
  await create.locator('.error', { hasText: /InvalidTopicException/ }).waitFor();
  assert.ok((await create.locator('.error').innerText()).includes(HOSTILE[0]), 'the refused name is quoted as text');
  await assertClean(page, seen, 'the create-topic form');
  await screenshot(page, 'csp-hostile-text');
  await page.close();
});

test('a hostile lesson file shows its text as text', async () => {
  const { page, seen } = await watchedPage();
  await page.goto(server.url);
  await page.locator('article.broker').first().waitFor();
  const t = (s) => ({ en: s, zh: s });
  const lesson = {
    version: 1,
    id: 'hostile',
    title: t(HOSTILE[0]),
    summary: t(HOSTILE[1]),
    scenario: 'default',
    steps: [{ text: t(HOSTILE[2]), hint: t(HOSTILE[1]) }, { text: t(HOSTILE[0]) }],
  };
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-file input').setInputFiles({
    name: 'hostile.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(lesson)),
  });
  await page.locator('#p-lesson').waitFor();
  assert.equal(await page.locator('#p-lesson h2').innerText(), HOSTILE[0]);
  assert.equal(await page.locator('#p-lesson .lesson-text').innerText(), HOSTILE[2]);
  await page.locator('#p-lesson [data-act="hint"]').click();
  assert.ok((await page.locator('#p-lesson .lesson-hint').innerText()).includes(HOSTILE[1]));
  await assertClean(page, seen, 'a lesson file');
  // A lesson file whose point_at names a hostile topic: the highlight selector stays a selector.
  lesson.id = 'hostile-2';
  lesson.steps = [{ text: t('x'), point_at: `partition:${HOSTILE[2]}-0` }];
  await page.locator('#p-lesson [data-act="leave"]').click();
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-file input').setInputFiles({
    name: 'hostile-2.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(lesson)),
  });
  await page.locator('#p-lesson, .lesson-file-error').first().waitFor();
  await assertClean(page, seen, 'a lesson file pointing at a hostile topic');
  await page.close();
});

test('a hostile share link shows its problems as text', async () => {
  const { page, seen } = await watchedPage();
  const enc = encodeURIComponent;
  // The link's problems are quoted with Rust's {:?} (a '"' shows as '\"'): this text has none.
  const bare = '<img src=x onerror=alert(1)>';
  const acts = JSON.stringify([{ at_ms: 1000, action: 'create_topic', topic: bare, partitions: 1, replication_factor: 1 }]);
  await page.goto(`${server.url}#s=${enc(bare)}&lang=${enc(HOSTILE[1])}&a=${enc(acts)}`);
  await page.locator('article.broker').first().waitFor();
  const shown = await page.locator('.error').first().innerText();
  assert.ok(shown.includes(`no built-in scenario "${bare}"`), `the unknown scenario is quoted as text: ${shown}`);
  await assertClean(page, seen, 'a share link');
  await page.close();
});

test('a .wasm that does not match its integrity hash is refused', async () => {
  // A copy of dist/ with one byte appended to the .wasm, as a tampering host or cache would serve it.
  const dir = await mkdtemp(join(tmpdir(), 'kcsim-tampered-'));
  const bad = await serveDist(dir);
  try {
    await cp(DIST, dir, { recursive: true });
    const wasm = (await readdir(dir)).find((f) => f.endsWith('_bg.wasm'));
    await appendFile(join(dir, wasm), Buffer.from([0]));
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(bad.url);
    const deadline = Date.now() + 20000;
    while (!errors.some((e) => /integrity/i.test(e)) && Date.now() < deadline) await page.waitForTimeout(100);
    assert.ok(errors.some((e) => /integrity/i.test(e)), `the browser refused the .wasm for its hash: ${errors}`);
    assert.equal(await page.locator('article.broker').count(), 0, 'the page did not start');
    await page.close();
  } finally {
    await bad.close();
    await rm(dir, { recursive: true, force: true });
  }
});
