'use strict'

const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { ensureChromium } = require('@nodebench/services')

// The tests' look at a page nodebench wrote (a bench or browser report, a flamegraph): opened in a real
// headless Chromium (Debian's, driven by playwright-core: no browser download), it says what a reader would
// see: how many charts, which are empty, what the console said.

const LAUNCH_ARGS = Object.freeze(['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'])

/** In the page: each `.chart` container's SVG, its size and how many data marks Vega drew in it. */
function inspectCharts () {
  return [...document.querySelectorAll('.chart')].map((container, index) => {
    const svg = container.querySelector('svg')
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 }
    // Vega puts data marks in groups with the class role-mark; axes, legends and titles have other roles.
    const marks = svg ? svg.querySelectorAll('g.role-mark path, g.role-mark rect, g.role-mark line, g.role-mark circle').length : 0
    return { index, label: container.getAttribute('aria-label') || '', hasSvg: Boolean(svg), width: box.width, height: box.height, marks }
  })
}

/**
 * @param {string} htmlPath the report.html to open
 * @param {object} [options]
 * @param {string} [options.screenshotPath] default: report.png next to the report
 * @param {string} [options.chromiumPath] default: ensureChromium() (CHROMIUM_PATH, /usr/bin/chromium, or apt-get)
 * @returns {Promise<{ charts: number, emptyCharts: string[], consoleErrors: string[], externalRequests: string[],
 *   screenshot: string }>}
 */
async function checkReportInBrowser (htmlPath, { screenshotPath, chromiumPath } = {}) {
  // Required on use, as nodebench browser does.
  const { chromium } = require('playwright-core')
  const executablePath = chromiumPath || await ensureChromium()
  const screenshot = screenshotPath || path.join(path.dirname(path.resolve(htmlPath)), 'report.png')
  const consoleErrors = []
  const externalRequests = []
  const browser = await chromium.launch({ executablePath, args: [...LAUNCH_ARGS] })
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()) })
    page.on('pageerror', (error) => consoleErrors.push(String(error && error.stack ? error.stack : error)))
    // The report is self-contained: anything it asks for beyond its own file is a defect.
    page.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith('file:') && !url.startsWith('data:')) externalRequests.push(url)
    })
    await page.goto(pathToFileURL(path.resolve(htmlPath)).href, { waitUntil: 'load' })
    const charts = await page.evaluate(inspectCharts)
    await page.screenshot({ path: screenshot, fullPage: true })
    const emptyCharts = charts.filter((c) => !c.hasSvg || c.width === 0 || c.height === 0 || c.marks === 0)
      .map((c) => c.label || `chart ${c.index + 1}`)
    return { charts: charts.length, emptyCharts, consoleErrors, externalRequests, screenshot }
  } finally {
    await browser.close()
  }
}

module.exports = { checkReportInBrowser }
