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
 * In the page: tables wider than the window (a reader would scroll sideways), and text labels of a chart that
 * overlap another of the same chart (axis labels, titles, legends, marks' labels), by their boxes on screen.
 */
function inspectLayout () {
  const viewport = document.documentElement.clientWidth
  const headingOf = (element) => {
    for (let node = element; node !== null; node = node.previousElementSibling || node.parentElement) {
      if (/^H[1-4]$/.test(node.tagName)) return node.textContent.trim()
    }
    return ''
  }
  const wideTables = [...document.querySelectorAll('table')].map((table, index) => ({ index, heading: headingOf(table), width: Math.ceil(table.getBoundingClientRect().width), right: Math.ceil(table.getBoundingClientRect().right) }))
    .filter((table) => table.right > viewport)
  const overlappingLabels = []
  for (const [index, container] of [...document.querySelectorAll('.chart')].entries()) {
    // A label Vega hid (opacity 0: it would have met another) is not drawn.
    const labels = [...container.querySelectorAll('svg text')].filter((text) => text.textContent.trim() !== '' && window.getComputedStyle(text).opacity !== '0')
      .map((text) => ({ text: text.textContent.trim(), box: text.getBoundingClientRect() }))
      .filter(({ box }) => box.width > 0 && box.height > 0)
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i].box
        const b = labels[j].box
        // A pixel of slack: glyph boxes of neighbouring lines touch.
        const overlapX = Math.min(a.right, b.right) - Math.max(a.left, b.left)
        const overlapY = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)
        if (overlapX > 1 && overlapY > 1) {
          overlappingLabels.push({ chart: container.getAttribute('aria-label') || `chart ${index + 1}`, labels: [labels[i].text, labels[j].text] })
        }
      }
    }
  }
  return { viewport, wideTables, overlappingLabels }
}

/**
 * @param {string} htmlPath the report.html to open
 * @param {object} [options]
 * @param {string} [options.screenshotPath] default: report.png next to the report
 * @param {string} [options.chromiumPath] default: ensureChromium() (CHROMIUM_PATH, /usr/bin/chromium, or apt-get)
 * @returns {Promise<{ charts: number, emptyCharts: string[], consoleErrors: string[], externalRequests: string[],
 *   screenshot: string, wideTables: Array<{ heading, width }>, overlappingLabels: Array<{ chart, labels }>, sectionOrder: string[] }>}
 *   `wideTables`: tables wider than a 1400 px window; `overlappingLabels`: chart labels drawn over each other;
 *   `sectionOrder`: the ids of the page's sections, top to bottom
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
    const { wideTables, overlappingLabels } = await page.evaluate(inspectLayout)
    const sectionOrder = await page.evaluate(() => [...document.querySelectorAll('main > section[id], body > main section[id]')].map((s) => s.id))
    await page.screenshot({ path: screenshot, fullPage: true })
    const emptyCharts = charts.filter((c) => !c.hasSvg || c.width === 0 || c.height === 0 || c.marks === 0)
      .map((c) => c.label || `chart ${c.index + 1}`)
    return { charts: charts.length, emptyCharts, consoleErrors, externalRequests, screenshot, wideTables, overlappingLabels, sectionOrder: [...new Set(sectionOrder)] }
  } finally {
    await browser.close()
  }
}

/**
 * A flamegraph page (0x's) opened in a 1400x1000 window: how many pixels of its chart have the key's hot colour
 * (a frame's fill) in all, and how many of them show in the window without scrolling.
 */
async function hotFramePixels (htmlPath, { chromiumPath } = {}) {
  const { chromium } = require('playwright-core')
  const browser = await chromium.launch({ executablePath: chromiumPath || await ensureChromium(), args: [...LAUNCH_ARGS] })
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } })
    await page.goto(pathToFileURL(path.resolve(htmlPath)).href, { waitUntil: 'load' })
    await page.waitForTimeout(500)
    return await page.evaluate(() => {
      const chart = document.querySelector('chart')
      const canvas = chart.querySelector('canvas')
      const swatches = document.querySelectorAll('#key > div[style*="background"]')
      const hot = window.getComputedStyle(swatches[swatches.length - 1]).backgroundColor.match(/[\d.]+/g).map(Number)
      const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
      const box = canvas.getBoundingClientRect()
      const view = chart.getBoundingClientRect()
      const scale = box.height / canvas.height
      let all = 0
      let inView = 0
      for (let y = 0; y < canvas.height; y++) {
        const top = box.top + y * scale
        for (let x = 0; x < canvas.width; x++) {
          const i = (y * canvas.width + x) * 4
          if (pixels[i + 3] > 0 && [0, 1, 2].every((c) => Math.abs(pixels[i + c] - hot[c]) <= 3)) {
            all++
            if (top >= Math.max(0, view.top) && top < Math.min(window.innerHeight, view.bottom)) inView++
          }
        }
      }
      return { hotPixels: all, hotPixelsInView: inView }
    })
  } finally {
    await browser.close()
  }
}

module.exports = { checkReportInBrowser, hotFramePixels }
