// '?' explains the page's parts and Kafka's terms, each a link to its panel,
// and following a link moves focus and scroll to that panel without touching
// the share link in the address bar.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const PARTS = ['Broker cards', 'Event queues', 'The wire', 'Why', 'Partitions', "Kafka's tools",
  'Admin tools', 'ZooKeeper tree', 'Invariants', 'Time controls'];
const TERMS = ['Controller', 'Controller epoch', 'activeControllerId', 'AR', 'ISR', 'LEO', 'HW',
  'Preferred replica', 'Unclean election', 'Ephemeral znode', 'Session timeout'];

test("'?' names the page's parts and terms, each linking to its panel", async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  await page.locator('main.kcsim').focus();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Help: the page, its terms and keys' });
  await help.waitFor();
  for (const name of [...PARTS, ...TERMS]) {
    const link = help.getByRole('link', { name, exact: true });
    assert.equal(await link.count(), 1, `${name} is explained once, as a link`);
    const id = (await link.getAttribute('href')).slice(1);
    assert.equal(await page.locator(`[id="${id}"]`).count(), 1, `${name} links to #${id}, which exists`);
  }
  assert.match(await help.innerText(), /space.*play \/ pause/s, 'the keys too');
  await screenshot(page, 'help-open');
  const hash = new URL(page.url()).hash;

  // A panel low on the page: the link scrolls to it and focuses it, and closes the help.
  await help.getByRole('link', { name: 'ZooKeeper tree', exact: true }).click();
  await page.waitForFunction(() => document.activeElement?.id === 'p-zookeeper');
  assert.equal(await help.count(), 0, 'the help closed');
  const inView = await page.evaluate(() => {
    const r = document.getElementById('p-zookeeper').getBoundingClientRect();
    return r.top < window.innerHeight && r.bottom > 0;
  });
  assert.ok(inView, 'the ZooKeeper panel is on screen');
  assert.equal(new URL(page.url()).hash, hash, 'the address bar still holds the share link');

  // A term: ISR goes to the partitions.
  await page.keyboard.press('?');
  await help.getByRole('link', { name: 'ISR', exact: true }).click();
  await page.waitForFunction(() => document.activeElement?.id === 'p-partitions');
  // The keys still work with focus on a panel.
  await page.keyboard.press('?');
  await help.waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await help.count(), 0);
  await screenshot(page, 'help-followed');
  assert.deepEqual(errors, []);
});
