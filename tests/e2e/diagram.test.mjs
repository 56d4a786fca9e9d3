// The sequence diagram pane: pick a window, click (or press Enter on) an arrow
// to move the time cursor there, download the SVG, download the trace and load
// it back (it replays byte for byte); a malformed trace is refused by line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { serveDist, launch, openPage, screenshot, SHOTS } from './harness.mjs';

let server;
let browser;
before(async () => { server = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const cursor = async (page) => Number(await page.locator('input.scrub').inputValue());

test('the zombie controller as a sequence diagram: seek by arrow, SVG and trace round trip', async () => {
  // Kafka: a zombie controller's LeaderAndIsr (epoch 1) is refused with
  // STALE_CONTROLLER_EPOCH by a broker that has seen epoch 2.
  const { page, errors } = await openPage(browser, `${server.url}#s=zombie-controller&t=22000`, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const pane = page.locator('section#p-diagram');
  await pane.scrollIntoViewIfNeeded();
  await pane.getByLabel('Diagram window: seconds before the time cursor').selectOption('30');
  const svg = pane.locator('svg.sequence');
  assert.match(await svg.locator('text.title').textContent(), /Sequence diagram, 0\.000 s to 22\.000 s/);
  assert.equal(await svg.locator('line.life').count(), 4, 'ZooKeeper and three brokers');
  const stale = svg.locator('g.arrow.request.rejected');
  assert.ok(await stale.count() >= 1, 'the stale request is drawn rejected');
  assert.match(await stale.first().textContent(), /LeaderAndIsr \(controller epoch 1, leader epoch 1\)/);
  await stale.first().scrollIntoViewIfNeeded();
  await pane.screenshot({ path: join(SHOTS, 'diagram-zombie.png') });
  await screenshot(page, 'diagram-page');

  // A window of one's own: from 21 s to 22 s.
  await pane.getByLabel('Diagram window: seconds before the time cursor').selectOption('0');
  await pane.getByLabel('Diagram from (s)').fill('21');
  await pane.getByLabel('Diagram from (s)').press('Tab');
  await pane.getByLabel('Diagram to (s)').fill('22');
  await pane.getByLabel('Diagram to (s)').press('Tab');
  await svg.locator('text.title', { hasText: 'Sequence diagram, 21.000 s to 22.000 s' }).waitFor();
  assert.ok(await svg.locator('g.arrow.request.rejected').count() >= 1);
  assert.equal(await svg.locator('g.mark', { hasText: 'becomes the controller' }).count(), 0, 'the election at 17.4 s is outside');
  await pane.getByLabel('Diagram window: seconds before the time cursor').selectOption('30');

  // With the keyboard: focus a mark and press Enter.
  const elected = svg.locator('g.mark', { hasText: 'becomes the controller, epoch 2' });
  const electedAt = Number(await elected.getAttribute('data-time-ms'));
  await elected.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(([want]) => Number(document.querySelector('input.scrub').value) === want, [electedAt]);

  // Click an arrow: the cursor moves to its moment.
  const watch = svg.locator('g.arrow.watch', { hasText: 'NodeDeleted /controller' }).first();
  const at = Number(await watch.getAttribute('data-time-ms'));
  assert.ok(at > 15_000 && at < 22_000, `${at}`);
  await watch.click();
  await page.waitForFunction(([want]) => Number(document.querySelector('input.scrub').value) === want, [at]);
  assert.equal(await cursor(page), at);

  // Back to 22 s; download the SVG: the core's text, in the page's language.
  assert.deepEqual(errors, []);
  await page.close();
  await zh();
});

async function zh() {
  const { page, errors } = await openPage(browser, `${server.url}#s=zombie-controller&t=22000&lang=zh`, { width: 1280, height: 720 });
  await page.locator('article.broker').first().waitFor();
  const pane = page.locator('section#p-diagram');
  await pane.getByLabel('时序图窗口：时间游标之前的秒数').selectOption('10');
  const [svgFile] = await Promise.all([page.waitForEvent('download'), pane.getByRole('button', { name: '把时序图下载为 SVG' }).click()]);
  assert.match(svgFile.suggestedFilename(), /^kcsim-zombie-controller-12000-22000ms\.svg$/);
  const svgText = await readFile(await svgFile.path(), 'utf8');
  assert.ok(svgText.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.match(svgText, /<title>时序图：12\.000 s 至 22\.000 s<\/title>/);
  assert.match(svgText, /LeaderAndIsr（控制器纪元 1，leader epoch 1）/);
  assert.ok(!svgText.includes('<script'));

  // Download the trace, then load it back: it replays byte for byte.
  const [traceFile] = await Promise.all([page.waitForEvent('download'), pane.getByRole('button', { name: /把 trace 下载为 JSON lines/ }).click()]);
  const trace = await readFile(await traceFile.path(), 'utf8');
  const first = JSON.parse(trace.split('\n')[0]);
  assert.equal(first.kind, 'scenario');
  assert.equal(first.until_ms, 22000);
  assert.ok(trace.includes('STALE_CONTROLLER_EPOCH'));
  await page.getByLabel('场景').selectOption('default');
  await page.locator('article.broker').first().waitFor();
  await pane.getByLabel('载入要重放的 trace 文件').setInputFiles(await traceFile.path());
  await pane.locator('.trace-status.ok').waitFor();
  assert.match(await pane.locator('.trace-status').textContent(), /逐字节重现/);
  assert.equal(await cursor(page), 22000);
  assert.equal(await page.getByLabel('场景').inputValue(), 'zombie-controller');
  await pane.screenshot({ path: join(SHOTS, 'diagram-zh.png') });

  // An edited trace loads, marked; a malformed one is refused, naming the line.
  const dir = join(tmpdir(), 'kcsim-diagram-e2e');
  await mkdir(dir, { recursive: true });
  const lines = trace.split('\n');
  lines[5] = lines[5].replace('"details":"', '"details":"edited ');
  await writeFile(join(dir, 'edited.jsonl'), lines.join('\n'));
  await pane.getByLabel('载入要重放的 trace 文件').setInputFiles(join(dir, 'edited.jsonl'));
  await pane.locator('.trace-status.differs').waitFor();
  assert.match(await pane.locator('.trace-status').textContent(), /第 6 行/);
  await writeFile(join(dir, 'bad.jsonl'), lines[0] + '\n{"time_ms":"x"}\n');
  await pane.getByLabel('载入要重放的 trace 文件').setInputFiles(join(dir, 'bad.jsonl'));
  await pane.locator('.trace-status.refused').waitFor();
  assert.match(await pane.locator('.trace-status').textContent(), /line 2: time_ms/);
  assert.deepEqual(errors, []);
}
