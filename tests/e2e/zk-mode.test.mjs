// The controller's ZooKeeper access (sim.controller.zk.mode) chosen in the
// page: switching to Kafka 1.0's synchronous access restarts the scenario
// with it, the share link carries it, and a controller failover ends the same
// way but finishes later in virtual time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const btn = (page, name) => page.getByRole('button', { name, exact: true });
const zkSelect = (page) => page.getByLabel('ZooKeeper access', { exact: true });

async function controllerOf(page) {
  const json = await page.locator('.controller-json').textContent();
  return JSON.parse(json).brokerid;
}

/** Kill the controller, then jump from interesting event to interesting event
 * until the new one is elected; returns it and how long its failover (the
 * Reelect event it has just started) will take, as the event queue says. */
async function failover(page) {
  const old = await controllerOf(page);
  await btn(page, `Kill broker ${old} (kill -9)`).click();
  const summary = page.locator('header .summary');
  for (let i = 0; i < 10 && !(await summary.textContent()).includes('epoch 2'); i++) {
    await btn(page, 'Jump to the next interesting event (n)').click();
  }
  await summary.filter({ hasText: 'epoch 2' }).waitFor();
  const now = await controllerOf(page);
  assert.notEqual(now, old);
  const current = await page.locator(`.queue[data-broker="${now}"] .event.current`).textContent();
  const m = current.match(/^▶ Reelect \(finishes in (\d+) ms\)$/);
  assert.ok(m, `the new controller is in its failover: ${current}`);
  return { old, now, reelectMs: Number(m[1]) };
}

test('switching to sync restarts the scenario with it, the link carries zk=sync, and a failover takes longer', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const zk = zkSelect(page);
  assert.equal(await zk.inputValue(), 'async', 'Kafka 1.1+ is the default');
  assert.deepEqual(
    (await zk.locator('option').allTextContents()).map((t) => t.trim()),
    ['async — Kafka 1.1+', 'sync — Kafka 1.0'],
  );
  assert.match(await zk.getAttribute('title'), /starting configuration/);
  const shown = page.locator('header .summary .zk-mode-shown');
  assert.match(await shown.textContent(), /ZooKeeper access: async — Kafka 1\.1\+/);
  assert.doesNotMatch(await page.getByLabel('Share link to this moment').inputValue(), /zk=/);

  const asyncRun = await failover(page);
  await screenshot(page, 'zk-async-failover');

  // Keyboard: focus the picker and choose the next option with an arrow key.
  await zk.focus();
  await page.keyboard.press('ArrowDown');
  await shown.filter({ hasText: 'sync — Kafka 1.0' }).waitFor({ state: 'attached' });
  assert.equal(await zk.inputValue(), 'sync');
  const notice = await page.getByRole('status').filter({ hasText: 'starting configuration' }).textContent();
  assert.match(notice, /restarted from the beginning/);
  assert.match(notice, /Your action was dropped\./);
  assert.equal(await page.locator('.control-row .clock').textContent(), 't = 3.000 s', 'a new cluster');
  assert.equal(await page.locator(`article.broker[data-broker="${asyncRun.old}"].status-dead`).count(), 0,
    'the kill was dropped with the old cluster');
  assert.equal(await btn(page, 'Undo the last action (u)').isDisabled(), true);
  const link = await page.getByLabel('Share link to this moment').inputValue();
  assert.match(link, /^#s=default&t=3000&zk=sync$/);
  await page.waitForFunction(() => window.location.hash.includes('zk=sync'));

  const syncRun = await failover(page);
  await screenshot(page, 'zk-sync-failover');
  assert.equal(syncRun.old, asyncRun.old);
  assert.equal(syncRun.now, asyncRun.now, 'the same broker wins');
  assert.ok(syncRun.reelectMs > asyncRun.reelectMs,
    `sync failover ${syncRun.reelectMs} ms, async ${asyncRun.reelectMs} ms`);

  // The link opens the same moment, in sync mode.
  const again = await page.getByLabel('Share link to this moment').inputValue();
  assert.match(again, /&zk=sync&a=/);
  const other = await openPage(browser, `${server.url}${again}`, { width: 1280, height: 720 });
  await other.page.locator('article.broker').first().waitFor();
  assert.equal(await zkSelect(other.page).inputValue(), 'sync');
  await other.page.locator('header .summary .zk-mode-shown', { hasText: 'sync — Kafka 1.0' }).waitFor({ state: 'attached' });
  assert.equal(await controllerOf(other.page), syncRun.now);
  assert.deepEqual(other.errors, []);
  await other.page.close();

  // Another scenario starts with its own setting (async).
  await page.getByLabel('Scenario').selectOption('controller-failover');
  await shown.filter({ hasText: 'async — Kafka 1.1+' }).waitFor({ state: 'attached' });
  assert.equal(await zk.inputValue(), 'async');
  assert.deepEqual(errors, []);
});

test('a share link with a bad zk= value says what is wrong', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&t=3000&zk=fast`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /broken share link: zk="fast" is not a ZooKeeper access mode \(async or sync\)/);
  assert.equal(await zkSelect(page).inputValue(), 'async');
  assert.deepEqual(errors, []);
});
