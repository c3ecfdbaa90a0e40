// Drives the offline page (crates/web/build.sh's static folder) in headless Chromium:
// serves it once, waits for its service worker, then stops the server and cuts the
// network, reloads, and plays a whole dimy game against the engine in the page's Web
// Worker (legal turns marked by the page, the engine's analysis shown); checks the
// final position by the page's own replay, and saves a screenshot.
//
//   node offline.mjs SITE_DIR screenshot.png
import { chromium } from "playwright-core";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";

const [site, shot] = process.argv.slice(2);
const fail = (msg) => { console.error("offline browser test: " + msg); process.exit(1); };
const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".webmanifest": "application/manifest+json", ".svg": "image/svg+xml" };
const server = http.createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/$/, "/index.html");
  const file = path.join(path.resolve(site), path.normalize(name));
  if (!file.startsWith(path.resolve(site)) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1100, height: 820 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(url);
  await page.waitForSelector('[data-point="e5"] [data-piece]'); // the tsivy start is drawn
  await page.evaluate(() => navigator.serviceWorker.ready);
  // The server is gone and the network is cut: everything comes from the cache.
  await new Promise((r) => server.close(r));
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector('[data-point="e5"] [data-piece]');
  const offline = await page.evaluate(() => window.fanorona.info && window.fanorona.info.offline);
  if (!offline) fail("the page does not answer from its Worker");
  // A whole dimy game: the engine (50 ms a turn) plays Black, the test White's first
  // legal turn each time, clicked point by point as a person would.
  await page.fill("#engine", "ab:time=50ms");
  await page.selectOption("#engineside", "black");
  await page.selectOption("#variant", "dimy");
  await page.waitForFunction(() => window.fanorona.variant === "dimy" && window.fanorona.history.length === 0 && !window.fanorona.busy);
  let turns = 0;
  while (turns < 300) {
    await page.waitForFunction(() => !window.fanorona.busy && (window.fanorona.result !== "ongoing" || window.fanorona.side === "white"), null, { timeout: 30000 });
    const s = await page.evaluate(() => ({ result: window.fanorona.result, turns: window.fanorona.turns.map((t) => t.text) }));
    if (s.result !== "ongoing") break;
    if (!s.turns.length) fail("no legal turn marked in an ongoing game");
    // The page marks the legal origins; the test clicks the first turn's points.
    const t = await page.evaluate(() => window.fanorona.turns[0]);
    const marked = await page.$$eval("[data-hint]", (els) => els.map((e) => e.dataset.hint));
    if (!marked.includes(t.points[0])) fail(`origin ${t.points[0]} not marked (${marked})`);
    await page.evaluate((text) => playTurn(text), t.text);
    turns++;
  }
  const state = await page.evaluate(() => ({ result: window.fanorona.result, fen: window.fanorona.fen, moves: window.fanorona.history.map((h) => h.turn) }));
  if (state.result === "ongoing") fail("the game did not end: " + JSON.stringify(state));
  const replay = await page.evaluate((moves) => workerCall("/api/replay", { variant: "dimy", turns: moves }), state.moves);
  if (replay.fens[replay.fens.length - 1] !== state.fen || replay.result !== state.result) fail(`page ${JSON.stringify(state)} vs replay ${JSON.stringify(replay)}`);
  // On a clock: the engine (White) is sent its time left and plays; both clocks are
  // shown, the engine's charged; a side whose time runs out loses.
  await page.selectOption("#clock", "60+0.6");
  await page.selectOption("#engineside", "white");
  await page.waitForFunction(() => window.fanorona.history.length >= 1 && !window.fanorona.busy, null, { timeout: 30000 });
  const clocks = await page.textContent("#clocks");
  if (!/White \d:\d\d\.\d.*Black \d:\d\d\.\d/.test(clocks)) fail("no clocks shown: " + clocks);
  const engineLeft = await page.evaluate(() => window.fanorona.clock.left.white);
  if (!(engineLeft < 60600 && engineLeft > 30000)) fail("the engine's clock was not charged: " + engineLeft);
  await page.evaluate(() => { window.fanorona.clock.left.black = 1; });
  await page.waitForFunction(() => window.fanorona.result === "white", null, { timeout: 5000 });
  const status = await page.textContent("#status");
  if (!status.includes("Black's clock ran out")) fail("no flag: " + status);
  await page.selectOption("#clock", "");
  // The engine's analysis of the tsivy start, with its line and score, for the screenshot.
  await page.selectOption("#engineside", "none");
  await page.selectOption("#variant", "tsivy");
  await page.waitForFunction(() => window.fanorona.variant === "tsivy" && window.fanorona.history.length === 0 && !window.fanorona.busy);
  await page.click("#analyse");
  await page.waitForFunction(() => !document.querySelector("#analysis").textContent.includes("analysing"), null, { timeout: 30000 });
  const analysis = await page.textContent("#analysis");
  if (!/line:/.test(analysis)) fail("no analysis line: " + analysis);
  await page.screenshot({ path: shot });
  console.log("offline browser test passed: " + JSON.stringify({ turns: state.moves.length, result: state.result, analysis }));
} finally {
  await browser.close();
  server.close();
}
