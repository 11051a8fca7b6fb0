'use strict'

// nodebench-test: once. Reports rendered from recorded runs: the Node.js version does not change what this tests.
// The bench report of a fixed set of runs (fixtures/report-runs/*/results.json, made by make-runs.js), rendered
// as report.html, report.md and the terminal's text, byte for byte as recorded beside each run. A change of how
// the report is built must leave these as they are; a change of what it shows rewrites them on purpose:
// `NODEBENCH_GOLDEN=write node --test packages/cli/test/report-golden.test.js`, then read the diff.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { renderHtml, renderMarkdown } = require('../lib/bench/report')
const { renderBenchText } = require('../lib/api')
const { flameSection } = require('../lib/flame/pass')
const { browserSection } = require('../lib/browser/pass')

const RUNS = path.join(__dirname, 'fixtures', 'report-runs')
const WRITE = process.env.NODEBENCH_GOLDEN === 'write'

const names = fs.readdirSync(RUNS, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()

function same (file, rendered) {
  if (WRITE) fs.writeFileSync(file, rendered)
  const recorded = fs.readFileSync(file, 'utf8')
  if (rendered === recorded) return
  const at = [...rendered].findIndex((char, i) => char !== recorded[i])
  assert.fail(`${path.relative(RUNS, file)} differs from byte ${at}:\n  recorded ${JSON.stringify(recorded.slice(at - 80, at + 120))}\n  rendered ${JSON.stringify(rendered.slice(at - 80, at + 120))}`)
}

test('the fixed runs are there, one of each kind the report shows', () => {
  assert.deepEqual(names, ['own-app', 'quick', 'scale-out', 'servers-only', 'sweep', 'targets'])
})

for (const name of names) {
  test(`${name}: report.html, report.md and the terminal's text are as recorded`, { timeout: 120_000 }, async () => {
    const read = () => JSON.parse(fs.readFileSync(path.join(RUNS, name, 'results.json'), 'utf8'))
    const sections = [flameSection, browserSection]
    same(path.join(RUNS, name, 'report.html'), await renderHtml(read(), { sections }))
    same(path.join(RUNS, name, 'report.md'), renderMarkdown(read(), { sections }))
    same(path.join(RUNS, name, 'terminal.txt'), renderBenchText(read()))
  })
}
