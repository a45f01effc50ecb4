// The CDP endpoint's cost to a Playwright client (issue 49): connect, the
// median and 90th percentile of 1,000 Runtime.evaluate round trips of
// 1+1 on a page's session, and a short script (load a page, fill a field,
// click, take a screenshot) per pass. Run by scripts/cdp-bench.sh against
// browserd's /cdp and against a bare Chromium's own port.
const { chromium } = require('playwright-core');
const [endpoint, site, label] = process.argv.slice(2);
(async () => {
  const t0 = performance.now();
  const browser = await chromium.connectOverCDP(endpoint);
  const ctx = browser.contexts()[0];
  const page = ctx.pages()[0] || await ctx.newPage();
  const connected = performance.now() - t0;
  const s = await ctx.newCDPSession(page);
  for (let i = 0; i < 100; i++) await s.send('Runtime.evaluate', { expression: '1+1' });
  const rt = [];
  for (let i = 0; i < 1000; i++) {
    const a = performance.now();
    await s.send('Runtime.evaluate', { expression: '1+1', returnByValue: true });
    rt.push(performance.now() - a);
  }
  rt.sort((a, b) => a - b);
  await page.goto(site);
  const runs = [];
  for (let i = 0; i < 10; i++) {
    const a = performance.now();
    await page.goto(site);
    await page.fill('#q', 'hello');
    await page.click('button');
    await page.screenshot();
    runs.push(performance.now() - a);
  }
  runs.sort((a, b) => a - b);
  console.log(JSON.stringify({ label, connect: +connected.toFixed(1), median: +rt[500].toFixed(3), p90: +rt[900].toFixed(3), script: +runs[5].toFixed(1) }));
  await s.detach();
  await browser.close();
})().catch(e => { console.error(e); process.exit(1); });
