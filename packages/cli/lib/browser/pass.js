'use strict'

const { escapeHtml, escapeMarkdown } = require('@nodebench/breakdown')
const { section } = require('../render/page')
const { textList } = require('../render/findings')
const { browserConfig } = require('./config')
const { runBrowser } = require('./run')
const { renderBrowserHtml, renderBrowserMarkdown, browserFindings } = require('./report')

// `bench --browser`: the workload's pages loaded in Chromium after the matrix, quickly (two runs a page, cold
// and warm cache), on the bench's own app, workload and database, into the run's folder (browser.json); and
// its section of the bench report and lines for the terminal. A pass that cannot run is said, not thrown: the
// bench's own figures stand. A pass as bench/run.js takes them: `{ key, run(context), section }`.

/** The browser pass of a bench run. */
function browserPass () {
  return {
    key: 'browser',
    async run ({ target, workload, outDir, env, onProgress }) {
      try {
        const config = browserConfig({
          app: target.app ?? undefined,
          cmd: target.cmd ?? undefined,
          url: target.url ?? undefined,
          quick: true,
          cache: 'cold,warm',
          network: 'none',
          out: outDir
        }, { workload })
        const { results } = await runBrowser(config, { env, onProgress })
        return results
      } catch (err) {
        onProgress(`the browser pass could not run: ${err.message}`)
        return { failure: err.message }
      }
    },
    section: browserSection
  }
}

const TITLE = 'The browser: the study\'s client-side half'

/** The bench report's section, and what the terminal says of the pass. */
const browserSection = Object.freeze({
  key: 'browser',
  id: 'browser',
  nav: 'Browser',
  html: (results) => (results.failure
    ? section('browser', TITLE, `<p class="left-out">The browser pass could not run: ${escapeHtml(results.failure)}</p>`)
    : renderBrowserHtml(results)),
  markdown: (results) => (results.failure
    ? `## The browser\n\nThe browser pass could not run: ${escapeMarkdown(results.failure)}\n`
    : renderBrowserMarkdown(results)),
  text: (results) => (results.failure
    ? `The browser pass could not run: ${results.failure}\n`
    : `The browser, here and in the study (medians of ${results.config.runs} loads in Chromium):\n` + textList(browserFindings(results)))
})

module.exports = { browserPass, browserSection }
