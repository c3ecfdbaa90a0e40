// Drives the page of `fanorona serve` in headless Chromium: plays a capture chain by
// clicks (with the approach/withdrawal choice), waits for the engine's reply, checks the
// drawn board against the server's position, and saves a screenshot.
//
//   node play.mjs http://127.0.0.1:PORT/ screenshot.png
import { chromium } from "playwright-core";

const [url, shot] = process.argv.slice(2);
const fail = (msg) => { console.error("browser test: " + msg); process.exit(1); };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 820 } });
  page.on("pageerror", (e) => fail("page error: " + e.message));
  await page.goto(url);
  await page.waitForSelector('[data-point="e5"] [data-piece]'); // the tsivy start is drawn
  // A dimy position where c3-c4 captures by approach (c5) or by withdrawal (c2), and
  // either goes on to d4 (approach on e4).
  await page.selectOption("#engineside", "black");
  await page.fill("#engine", "ab:depth=2");
  await page.fill("#fen", "B1B2/4B/2W2/2B2/W4 w");
  await page.click("#loadfen");
  await page.waitForFunction(() => window.fanorona.fen.startsWith("B1B2/4B/2W2/2B2/W4 w"));
  await page.click('[data-point="c3"]');
  await page.waitForSelector('[data-hint="c4"]');
  await page.click('[data-point="c4"]');
  await page.waitForSelector("#choice.show");
  await page.click("#approach");
  // c5 is gone, the piece stands on c4 and may go on to d4.
  await page.waitForSelector('[data-hint="d4"]');
  if (await page.$('[data-point="c5"] [data-piece]')) fail("c5 should be captured by the approach");
  await page.click('[data-point="d4"]');
  // The turn is complete: the engine (Black) replies, then it is White's turn or over.
  await page.waitForFunction(() => window.fanorona.history.length >= 2 && !window.fanorona.busy, null, { timeout: 20000 });
  const state = await page.evaluate(() => ({ fen: window.fanorona.fen, moves: window.fanorona.history.map((h) => h.turn) }));
  if (state.moves[0] !== "c3c4(+1)-d4(+1)") fail("first turn recorded as " + state.moves[0]);
  // The server's replay of the moves must give the page's position ...
  const replay = await page.evaluate(async (moves) => {
    const r = await fetch("/api/replay", { method: "POST", body: JSON.stringify({ fen: "B1B2/4B/2W2/2B2/W4 w", turns: moves }) });
    return r.json();
  }, state.moves);
  if (replay.fens[replay.fens.length - 1] !== state.fen) fail(`page ${state.fen} vs server ${JSON.stringify(replay)}`);
  // ... and the drawn pieces must be that position's.
  const drawn = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("[data-point]")].map((g) => {
    const p = g.querySelector("[data-piece]");
    return [g.dataset.point, p ? p.dataset.piece : "."];
  })));
  const rows = state.fen.split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let x = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { for (let k = 0; k < +ch; k++) { const p = String.fromCharCode(97 + x) + (rows.length - i); if (drawn[p] !== ".") fail(`${p} drawn ${drawn[p]}, empty in ${state.fen}`); x++; } continue; }
      const p = String.fromCharCode(97 + x) + (rows.length - i);
      if (drawn[p] !== ch) fail(`${p} drawn ${drawn[p]}, ${ch} in ${state.fen}`);
      x++;
    }
  });
  // Analysis of the dimy start (alpha-beta and the release network), for the screenshot.
  await page.selectOption("#engineside", "none");
  await page.selectOption("#variant", "dimy");
  await page.waitForFunction(() => window.fanorona.variant === "dimy" && window.fanorona.history.length === 0 && !window.fanorona.busy);
  await page.click("#analyse");
  await page.waitForFunction(() => !document.querySelector("#analysis").textContent.includes("analysing"), null, { timeout: 20000 });
  await page.screenshot({ path: shot });
  console.log("browser test passed: " + JSON.stringify(state));
} finally {
  await browser.close();
}
