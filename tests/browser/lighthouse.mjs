// Lighthouse on a few pages with one Chromium (tests/browser/test_budgets.py runs this).
// Usage: node tests/browser/lighthouse.mjs '[{"name": "bid", "url": "http://...", "cookie": "..."}]'
// Prints one JSON object: per page the category scores (0-100) and every audit under 1 that
// weighs in a category, so a failing gate says what to fix.
// Lighthouse's defaults: a mid-range phone, performance estimated from the page's trace with
// simulated throttling (Lantern), which does not depend on how busy this machine's network is.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'];
const pages = JSON.parse(process.argv[2] || '[]');
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  chromeFlags: [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ],
});
const results = {};
try {
  for (const page of pages) {
    const flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES };
    if (page.cookie) flags.extraHeaders = { Cookie: page.cookie };
    const { lhr } = await lighthouse(page.url, flags);
    const scores = {};
    const misses = [];
    for (const [id, category] of Object.entries(lhr.categories)) {
      scores[id] = Math.round((category.score ?? 0) * 100);
      for (const ref of category.auditRefs) {
        const audit = lhr.audits[ref.id];
        if (ref.weight > 0 && audit.score !== null && audit.score < 1) {
          misses.push(`${id}: ${ref.id} ${audit.score} ${audit.displayValue || ''}`.trim());
        }
      }
    }
    results[page.name] = { url: page.url, scores, misses, error: lhr.runtimeError?.message };
  }
} finally {
  await chrome.kill();
}
console.log(JSON.stringify(results));
