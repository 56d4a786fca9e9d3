// The console pane, driven with the keyboard only: Tab reaches the prompt,
// Tab completes, Enter runs Kafka's tools against the cluster, ↑ recalls,
// Escape leaves, and the page's own `u` undoes a typed kill -9. A malformed
// command changes nothing (the share link stays as it was); a lesson's
// checkpoint passes when the learner acts by typing. Both languages;
// screenshots at 1280×720 under target/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot, SHOTS } from './harness.mjs';
import { join } from 'node:path';

/** What the learner sees: the window, not the whole page. */
const windowShot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const PROMPT = '#console-line';
const link = (page) => page.locator('header .share input').inputValue();
const who = (page) => page.locator('header .summary .who').innerText();
const clock = (page) => page.locator('.control-row .clock').textContent();
const lastEntry = (page) => page.locator('#p-console .console-entry').last();

/** The controller's broker id as the header shows it. */
async function controller(page) {
  const m = (await who(page)).match(/broker (\d+)/);
  assert.ok(m, await who(page));
  return m[1];
}

/** Type a line at the prompt (which has focus) and run it; resolves to the new entry's text. */
async function run(page, line) {
  const n = await page.locator('#p-console .console-entry').count();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.locator('#p-console .console-entry').nth(n).waitFor();
  return page.locator('#p-console .console-entry').nth(n).innerText();
}

/** Press Tab from the top of the page until the prompt has focus. */
async function tabToPrompt(page) {
  await page.locator('main.kcsim').focus();
  for (let i = 0; i < 300; i++) {
    if (await page.evaluate((sel) => document.activeElement === document.querySelector(sel), PROMPT)) return i;
    await page.keyboard.press('Tab');
  }
  assert.fail('Tab never reached the console prompt');
}

test('a learner drives the cluster from the console with the keyboard only', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.locator('article.broker').first().waitFor();
  const pane = page.getByRole('region', { name: 'Console', exact: true });
  await pane.waitFor();
  const log = page.locator('#p-console .console-log');
  assert.equal(await log.getAttribute('role'), 'log');
  assert.equal(await log.getAttribute('aria-live'), 'polite');
  assert.equal(await log.isVisible(), false, 'folded to one line until used');

  const tabs = await tabToPrompt(page);
  assert.ok(tabs > 0);
  // Focus is visible on the prompt.
  const outline = await page.locator(PROMPT).evaluate((el) => getComputedStyle(el).outlineStyle);
  assert.notEqual(outline, 'none');
  assert.equal(await page.getByRole('log', { name: 'Console output' }).isVisible(), true, 'open while focused');
  // The page's c key goes there too, from the top of the page; docked, the
  // header and the brokers stay in the window while typing.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Home');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => window.scrollY === 0);
  await page.keyboard.press('c');
  assert.equal(await page.evaluate((sel) => document.activeElement === document.querySelector(sel), PROMPT), true);
  assert.equal(await page.locator(PROMPT).inputValue(), '', 'the c was not typed');
  assert.ok((await page.locator('header .summary').boundingBox()).y >= 0);
  const prompt = await page.locator(PROMPT).boundingBox();
  assert.ok(prompt.y + prompt.height <= 720, JSON.stringify(prompt));

  // Tab completes a command name; the page's keys do not fire while typing.
  const t0 = await clock(page);
  await page.keyboard.type('kafka-to');
  await page.keyboard.press('Tab');
  assert.equal(await page.locator(PROMPT).inputValue(), 'kafka-topics.sh ');
  await page.keyboard.type('--bootstrap-server localhost:9092 --desc');
  await page.keyboard.press('Tab');
  assert.equal(await page.locator(PROMPT).inputValue(), 'kafka-topics.sh --bootstrap-server localhost:9092 --describe ');
  assert.equal(await clock(page), t0, 'space, n and the rest stayed in the prompt');
  await page.keyboard.press('Enter');
  const described = await lastEntry(page).innerText();
  assert.match(described, /^\[3\.0 s\] \$ kafka-topics\.sh --bootstrap-server localhost:9092 --describe/);
  assert.match(described, /Topic: orders\s+PartitionCount: \d+\s+ReplicationFactor: \d+/);
  assert.match(described, /Topic: orders\s+Partition: 0\s+Leader: \d+\s+Replicas: [\d,]+\s+Isr: [\d,]+/);
  assert.match(described, /Topic: audit\s+PartitionCount/);
  // Several candidates are listed; one more letter completes.
  await page.keyboard.type('kafka-topics.sh --zookeeper localhost:2181 --describe --topic ');
  await page.keyboard.press('Tab');
  assert.match(await page.locator('#p-console .console-candidates').innerText(), /audit\s+orders/);
  await page.keyboard.type('or');
  assert.equal(await page.locator('#p-console .console-candidates').count(), 0, 'the list goes with the next key');
  await page.keyboard.press('Tab');
  const one = await run(page, '');
  assert.match(one, /--describe --topic orders \nTopic: orders\t/);
  assert.doesNotMatch(one, /Topic: audit/);

  // kill -9 the controller, let its session expire: a new controller.
  const before = await controller(page);
  const untouched = await link(page);
  assert.equal(await run(page, `kill -9 ${before}`), `[3.0 s] $ kill -9 ${before}`);
  await page.locator(`article.broker[data-broker="${before}"] .broker-status`, { hasText: 'dead' }).waitFor();
  assert.match(await link(page), /&a=/, 'the kill is in the share link');
  await run(page, 'sleep 10');
  await page.locator('header .summary', { hasText: 'epoch 2' }).waitFor();
  const after = await controller(page);
  assert.notEqual(after, before);
  const killed = await link(page);
  await screenshot(page, 'console-en');
  await windowShot(page, 'console-en-window');

  // A malformed command prints the tool's error and changes nothing.
  const bad = await run(page, 'kafka-topics.sh --bootstrap-server localhost:9092 --list --describe');
  assert.match(bad, /Command must include exactly one action/);
  assert.equal(await lastEntry(page).getAttribute('class'), 'console-entry failed');
  assert.equal(await link(page), killed, 'the share link fragment is unchanged');
  assert.match(await run(page, 'kill -9 42'), /No such process/);
  assert.equal(await link(page), killed);

  // ↑ recalls the previous commands, ↓ comes back.
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.locator(PROMPT).inputValue(), 'kill -9 42');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.locator(PROMPT).inputValue(), 'kafka-topics.sh --bootstrap-server localhost:9092 --list --describe');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator(PROMPT).inputValue(), '');

  // Escape leaves the prompt; the page's u undoes the typed kill.
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'log');
  await page.keyboard.press('u');
  await page.locator('header .summary', { hasText: 'epoch 1' }).waitFor();
  assert.equal(await controller(page), before);
  assert.ok(!(await link(page)).includes('&a='), 'undone: no action in the link');
  assert.ok(untouched.startsWith('#s=default'));
  assert.deepEqual(errors, []);
});

test('the console reads in Chinese, Kafka\'s text untranslated', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=default&t=3000&lang=zh`);
  await page.locator('article.broker').first().waitFor();
  const pane = page.getByRole('region', { name: '控制台', exact: true });
  await pane.waitFor();
  assert.equal(await pane.locator('h2').innerText(), '控制台');
  assert.equal(await page.getByRole('textbox', { name: /^控制台命令行/ }).count(), 1);
  await page.locator(PROMPT).focus();
  assert.match(await page.getByRole('log', { name: '控制台输出' }).locator('.console-hint').innerText(), /Tab 补全/);
  const out = await run(page, 'zookeeper-shell.sh localhost:2181 get /controller');
  assert.match(out, /\{"version":1,"brokerid":\d+,"timestamp":"\d+"\}/);
  await page.keyboard.type('zookeeper-shell.sh localhost:2181 ls /bro');
  await page.keyboard.press('Tab');
  assert.equal(await page.locator(PROMPT).inputValue(), 'zookeeper-shell.sh localhost:2181 ls /brokers/');
  // ZooKeeper refuses a path ending in "/": go on into the node, as bash does.
  await page.keyboard.type('ids');
  await page.keyboard.press('Enter');
  await page.locator('#p-console .console-entry', { hasText: /\[\d+(, \d+)*\]/ }).waitFor();
  await screenshot(page, 'console-zh');
  await windowShot(page, 'console-zh-window');
  assert.deepEqual(errors, []);
});

test('a lesson checkpoint passes when the learner kills the controller by typing', async () => {
  const { page, errors } = await openPage(browser, server.url);
  await page.locator('article.broker').first().waitFor();
  await page.locator('.lessons-button').click();
  await page.locator('.lesson-item[data-lesson="controller-race"] .lesson-open').click();
  if (await page.locator('.lesson-offer').count()) {
    await page.locator('.lesson-offer button:not(.continue)').click();
  }
  await page.locator('#p-lesson').waitFor();
  await page.locator('#p-lesson [data-act="next"]').click();
  assert.match(await page.locator('#p-lesson .lesson-step').textContent(), /^step 2 of/);
  assert.equal(await page.locator('#p-lesson [data-act="next"]').isEnabled(), false, 'waits for the kill');
  const c = await controller(page);
  await page.locator(PROMPT).focus();
  await run(page, `kill -9 ${c}`);
  await page.locator('#p-lesson .lesson-wait.reached').waitFor();
  assert.equal(await page.locator('#p-lesson [data-act="next"]').isEnabled(), true);
  await windowShot(page, 'console-lesson-window');
  assert.deepEqual(errors, []);
});
