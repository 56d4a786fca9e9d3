// The page's layout for a class: at 1280×720 and 1920×1080, in both themes,
// the brokers, the controller's event queues, the wire, Why and the
// partitions' key columns are in the first screen with no sideways scroll;
// the header keeps its place when the stale-epoch counter appears; znode data
// only when asked for; `--describe` never cut off; usable at 125 % zoom.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage } from './harness.mjs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SHOTS } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const KEY_COLUMNS = ['tp', 'pstate', 'replicas', 'isr', 'leader', 'leader-epoch', 'hw'];

/** The whole box of `locator` (its first match) lies inside the viewport. */
async function inView(page, locator, what) {
  const box = await locator.first().boundingBox();
  assert.ok(box, `${what} is drawn`);
  const vp = page.viewportSize();
  assert.ok(box.x >= 0 && box.x + box.width <= vp.width + 0.5, `${what} within the width: ${JSON.stringify(box)}`);
  assert.ok(box.y >= 0 && box.y + box.height <= vp.height + 0.5, `${what} within the height: ${JSON.stringify(box)}`);
}

/** The top of `locator` (a panel) is in the first screen, some lines of it visible. */
async function topInView(page, locator, what, lines = 60) {
  const box = await locator.first().boundingBox();
  const vp = page.viewportSize();
  assert.ok(box.x >= 0 && box.x + box.width <= vp.width + 0.5, `${what} within the width`);
  assert.ok(box.y + lines <= vp.height, `${what} starts in the first screen: top at ${box.y}`);
}

async function shot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

for (const [width, height, scenario] of [[1280, 720, 'controller-failover'], [1920, 1080, 'controller-failover'], [1280, 720, 'default']]) {
  for (const dark of scenario === 'default' ? [false] : [false, true]) {
    test(`${width}×${height}${dark ? ' dark' : ''}, ${scenario}: the cluster, queues, wire, Why and key columns in the first screen`, async () => {
      const { page, errors } = await openPage(browser, `${server.url}#s=${scenario}&t=12000`, { width, height });
      await page.locator('article.broker').first().waitFor();
      if (dark) {
        await page.getByRole('button', { name: 'Toggle dark theme' }).click();
        await page.locator('main.kcsim.dark').waitFor();
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, 'no sideways scroll');
      for (const card of await page.locator('article.broker').all()) await inView(page, card, 'a broker card');
      await topInView(page, page.locator('section.queues'), 'the event queues');
      await inView(page, page.locator('section.queues .queue'), 'a queue');
      await inView(page, page.locator('section.network svg'), 'the wire');
      await topInView(page, page.locator('section.why'), 'Why', 90);
      await inView(page, page.locator('.why-line'), 'the latest Why line');
      for (const row of await page.locator('tr.partition').all()) {
        for (const c of KEY_COLUMNS) await inView(page, row.locator(`td.${c}`), `column ${c}`);
      }
      // Text readable from the back of the room.
      const px = await page.evaluate(() => ['.why-line', 'tr.partition td.pstate', '.event', '.broker dd', '.invariants li']
        .map((s) => [s, parseFloat(getComputedStyle(document.querySelector(s)).fontSize)]));
      for (const [s, size] of px) assert.ok(size >= 15, `${s} is ${size} px`);
      await shot(page, `layout-${width}${dark ? '-dark' : ''}-${scenario}`);
      // No figure on a broker card is cut short.
      for (const dt of await page.locator('article.broker dt').all()) {
        assert.ok(await dt.evaluate((e) => e.scrollWidth <= e.clientWidth), `${await dt.textContent()} shown whole`);
      }
      // znode data on demand: the tree's shape first.
      assert.equal(await page.locator('.znodes .zdata').count(), 0, 'no raw JSON by default');
      await page.getByRole('button', { name: "Show each znode's data" }).click();
      await page.locator('.znode[data-path="/controller"] .zdata').waitFor();
      // kafka-topics.sh --describe: nothing cut off, the Isr column there.
      const pre = page.locator('pre.describe');
      assert.match(await pre.textContent(), /Isr: /);
      assert.ok(await pre.evaluate((e) => e.scrollWidth <= e.clientWidth), '--describe fits its box');
      assert.deepEqual(errors, []);
    });
  }
}

test('the header does not move when the stale-epoch counter appears', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=zombie-controller&t=3000`, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const stale = page.locator('header .summary .stale');
  assert.equal(await stale.evaluate((e) => getComputedStyle(e).visibility), 'hidden', 'reserved while zero');
  const before = await page.locator('section.controls').boundingBox();
  const header = await page.locator('header').boundingBox();
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('n');
    await page.waitForTimeout(30);
    if (await stale.evaluate((e) => getComputedStyle(e).visibility) === 'visible') break;
  }
  assert.equal(await stale.evaluate((e) => getComputedStyle(e).visibility), 'visible', 'the zombie had requests rejected');
  assert.match(await stale.textContent(), /[1-9]\d* stale-epoch requests rejected/);
  assert.deepEqual(await page.locator('header').boundingBox(), header, 'the header kept its size');
  assert.deepEqual(await page.locator('section.controls').boundingBox(), before, 'what follows did not move');
  assert.deepEqual(errors, []);
});

test('at 125 % zoom (1024×576) nothing needs a sideways scroll and the key columns show', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1024, height: 576 });
  await page.locator('article.broker').first().waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1024, 'no sideways scroll');
  for (const row of await page.locator('tr.partition').all()) {
    for (const c of KEY_COLUMNS) {
      const box = await row.locator(`td.${c}`).boundingBox();
      assert.ok(box && box.x + box.width <= 1024, `column ${c} within the width`);
    }
  }
  await shot(page, 'layout-1024-zoom125');
  await page.locator('section.why').scrollIntoViewIfNeeded();
  assert.ok(await page.locator('section.why').isVisible());
  assert.deepEqual(errors, []);
});

test('every column when asked for, inside the panel', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const row = page.locator('tr[data-partition="orders-0"]');
  assert.equal(await row.locator('td.unavail-time').isVisible(), false, 'the key columns only at 1280');
  await page.getByRole('button', { name: /^Show every column/ }).click();
  await row.locator('td.unavail-time').waitFor();
  await row.getByRole('button', { name: 'Produce 5 records to orders-0 with acks=all' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 1280, 'the page still does not scroll sideways');
  assert.deepEqual(errors, []);
});
