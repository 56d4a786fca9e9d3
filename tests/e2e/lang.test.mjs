// The page in 中文 and English: the switch changes every visible label without
// touching the simulation, the choice survives a reload (localStorage) and
// travels in the share link (&lang=zh, which wins over the remembered
// choice), and a Kafka term explains itself on keyboard focus.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, openPage, screenshot } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const HAN = /[\u4e00-\u9fff]/;

/** Whether any element on the page is wider than the window or clipped sideways. */
async function overflow(page) {
  return page.evaluate(() => {
    const out = [];
    if (document.documentElement.scrollWidth > window.innerWidth) out.push(`page ${document.documentElement.scrollWidth}px wide`);
    for (const el of document.querySelectorAll('header *, .controls *, .broker *, .panel h2, .panel h3, .toggles *, th')) {
      if (['INPUT', 'SELECT', 'OPTION'].includes(el.tagName)) continue;
      const st = getComputedStyle(el);
      if (st.display === 'none' || st.visibility === 'hidden') continue;
      if (['hidden', 'clip'].includes(st.overflowX) && el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName}.${el.className}: ${el.textContent.slice(0, 40)}`);
    }
    return out;
  });
}

test('switching to 中文 translates the page, keeps the simulation and is remembered', async () => {
  const { page, errors } = await openPage(browser, `${server.url}#s=controller-failover&t=12000`, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  assert.equal((await page.locator('button.play').textContent()).trim(), '▶ play');
  await screenshot(page, 'lang-en-1280x720');
  assert.deepEqual(await overflow(page), [], 'English fits');
  const clock = await page.locator('.control-row .clock').textContent();
  const brokers = await page.locator('section.brokers article').count();
  const describe = await page.locator('pre.describe').textContent();

  const pick = page.getByRole('combobox', { name: 'Language / 语言' });
  assert.equal(await pick.inputValue(), 'en');
  await pick.focus();
  await pick.selectOption('zh');
  await page.waitForFunction(() => document.documentElement.lang === 'zh');
  assert.equal((await page.locator('button.play').textContent()).trim(), '▶ 播放');
  assert.equal(await page.locator('#p-partitions h2').textContent(), '分区');
  assert.equal(await page.locator('#p-queues h2').textContent(), '控制器事件队列');
  assert.match(await page.locator('header .summary').innerText(), /控制器.*纪元 \d/);
  assert.equal(await pick.inputValue(), 'zh');
  // Kafka's own words stay as Kafka prints them; the simulation is untouched.
  assert.equal(await page.locator('pre.describe').textContent(), describe);
  assert.equal(await page.locator('.control-row .clock').textContent(), clock);
  assert.equal(await page.locator('section.brokers article').count(), brokers);
  assert.match(await page.locator('.pstate').first().textContent(), /Partition|无活动控制器/);
  const kill = page.locator('article.broker').first().getByRole('button', { name: /（kill -9）/ });
  assert.equal((await kill.textContent()).trim(), 'kill -9');
  await page.waitForFunction(() => window.location.hash.includes('lang=zh'));
  await screenshot(page, 'lang-zh-1280x720');
  assert.deepEqual(await overflow(page), [], 'Chinese fits 1280×720');

  // Remembered across a reload, even from a link without lang=.
  assert.equal(await page.evaluate(() => localStorage.getItem('kcsim.lang')), 'zh');
  await page.goto(`${server.url}#s=default&t=3000`);
  await page.reload();
  await page.locator('article.broker').first().waitFor();
  assert.equal((await page.locator('button.play').textContent()).trim(), '▶ 播放');

  // Back to English: remembered too.
  await page.getByRole('combobox', { name: 'Language / 语言' }).selectOption('en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.evaluate(() => localStorage.getItem('kcsim.lang')), 'en');
  assert.equal((await page.locator('button.play').textContent()).trim(), '▶ play');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link with &lang=zh opens in Chinese, over the remembered English; a bad lang is reported', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await ctx.newPage();
  await page.goto(server.url);
  await page.evaluate(() => localStorage.setItem('kcsim.lang', 'en'));
  // A fresh load of the link (not a hash change and a reload: the page may
  // rewrite its fragment before the reload, which made this test flaky).
  await page.goto('about:blank');
  await page.goto(`${server.url}#s=zombie-controller&t=3000&lang=zh`);
  await page.locator('article.broker').first().waitFor();
  // The page sets <html lang> in an effect after its first render: poll for it.
  await page.locator('html[lang="zh"]').waitFor({ state: 'attached' });
  assert.equal((await page.locator('button.play').textContent()).trim(), '▶ 播放');
  assert.match(await page.locator('.controls .about').textContent(), HAN);
  assert.equal(await page.getByRole('combobox', { name: '场景' }).inputValue(), 'zombie-controller');

  // A term explains itself on keyboard focus, in the page's language.
  const isr = page.locator('#p-partitions th .term', { hasText: 'ISR' }).first();
  await isr.focus();
  const tip = page.getByRole('tooltip');
  await tip.waitFor();
  assert.match(await tip.textContent(), /leader 本身/);
  assert.equal(await isr.getAttribute('aria-describedby'), await tip.getAttribute('id'));
  const box = await tip.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 1280 && box.y + box.height <= 720 + 400, 'the tip is on screen');
  await screenshot(page, 'lang-zh-term-focus');
  await page.locator('main.kcsim').focus();
  assert.equal(await page.getByRole('tooltip').count(), 0, 'it goes with focus');

  // The help, in Chinese.
  await page.locator('main.kcsim').focus();
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: '帮助：页面、术语和快捷键' });
  await help.waitFor();
  assert.ok(await help.getByRole('link', { name: '优先副本', exact: true }).count() === 1);
  await screenshot(page, 'lang-zh-help');
  await page.keyboard.press('Escape');

  // A bad lang= is reported like any broken link, and ignored.
  await page.goto(`${server.url}#s=default&t=3000&lang=fr`);
  await page.reload();
  await page.locator('.error', { hasText: 'lang="fr" is not a language of the page (en or zh); ignored' }).waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'en', 'the remembered choice');
  await ctx.close();
});

test('English stays the default and a term explains itself on focus in English', async () => {
  const { page, errors } = await openPage(browser, server.url, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
  const term = page.locator('article.broker').first().locator('.term', { hasText: 'broker epoch' });
  await term.focus();
  assert.match(await page.getByRole('tooltip').textContent(), /czxid.*KIP-380/);
  assert.deepEqual(errors, []);
  await page.close();
});
