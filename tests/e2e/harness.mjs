// Shared set-up for the end-to-end tests: a static server for the page that
// `trunk build --release` wrote to dist/, and Debian's Chromium driven by
// playwright-core (which cannot download a browser of its own here).
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { join, extname, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.KCSIM_DIST ?? join(here, '..', '..', 'dist');
export const SHOTS = process.env.KCSIM_SCREENSHOTS ?? join(here, '..', '..', 'target', 'screenshots');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Serve dist/ (or another built copy, `dir`) on an ephemeral port of 127.0.0.1; resolves to { url, close }. */
export async function serveDist(dir = DIST) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Debian's Chromium, headless, with the flags this machine needs as root. */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
    ],
  });
}

/** A page that records console errors and page errors into `errors`. */
export async function openPage(browser, url, viewport = { width: 1280, height: 720 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** Pages taller than this (a 1,200-partition table) are shot as the window
 * shows them: Chromium's texture limit is 16,384 px, and such an image is
 * never looked at whole. */
const FULL_PAGE_MAX_PX = 16000;

/** Save a full-page screenshot under target/screenshots/. */
export async function screenshot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  const tall = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.screenshot({ path, fullPage: tall <= FULL_PAGE_MAX_PX });
  return path;
}
