'use strict'

const { isNumber, formatRate, formatShare, formatPercent, formatRatio, formatMs, processesText, listText } = require('../../render/format')
const { mean } = require('../../kernel/statistics')

// The study's findings checked against the run, in words: JSON against HTML, collection read's "almost twice",
// the function that owns the time, response sizes. Every sentence is computed from the summary's figures.

// How near to the study's "almost twice" a collection-read JSON/HTML ratio must be to be called close.
const ALMOST_TWICE = Object.freeze({ low: 1.7, high: 2.3 })

function pairName (row) {
  return `${row.label} at ${processesText(row.processes)}`
}

function jsonAgainstHtml (summary) {
  const compared = summary.htmlVsJson.filter((row) => row.jsonOverHtml !== null)
  const skipped = summary.htmlVsJson.filter((row) => row.jsonOverHtml === null)
  const skippedText = skipped.length
    ? ` Not compared: ${listText(skipped.map((row) => `${pairName(row)} (${row.missing.join(', ')})`))}.`
    : ''
  if (compared.length === 0) {
    return `HTML and JSON could not be compared: no operation has both formats measured at the same process count.${skippedText}`
  }
  const faster = compared.filter((row) => row.jsonOverHtml > 1)
  const withLatency = compared.filter((row) => row.htmlOverJsonLatency !== null)
  const lowerLatency = withLatency.filter((row) => row.htmlOverJsonLatency > 1)
  const pairs = `${compared.length} compared pair${compared.length === 1 ? '' : 's'}`
  if (faster.length === compared.length && lowerLatency.length === withLatency.length) {
    const range = `${formatRatio(Math.min(...compared.map((r) => r.jsonOverHtml)))} to ${formatRatio(Math.max(...compared.map((r) => r.jsonOverHtml)))}`
    return `JSON beat HTML in all ${pairs} (operation and process count), in requests per second (${range} HTML's) ` +
      `and in mean latency, as the study found at every process count.${skippedText}`
  }
  const htmlAhead = compared.filter((row) =>
    row.jsonOverHtml <= 1 || (row.htmlOverJsonLatency !== null && row.htmlOverJsonLatency <= 1))
  const exceptions = htmlAhead.map((row) => `${pairName(row)} (JSON ${formatRate(row.json.requestsPerSec)} req/s, ${formatMs(row.json.latencyMeanMs)} ms; ` +
    `HTML ${formatRate(row.html.requestsPerSec)} req/s, ${formatMs(row.html.latencyMeanMs)} ms)`)
  return `JSON beat HTML in requests per second in ${faster.length} of ${pairs} and in mean latency in ${lowerLatency.length} of ${withLatency.length}, ` +
    `unlike the study, where JSON was ahead at every process count; HTML held its own in ${listText(exceptions)}.${skippedText}`
}

function collectionReadRatio (summary) {
  const described = summary.scenarios.find((s) => s.name === 'collection-read')
  if (described === undefined) {
    return 'Collection read was not measured, so the study\'s JSON "almost twice as" fast as HTML is not checked.'
  }
  const rows = summary.htmlVsJson.filter((row) => row.scenario === 'collection-read' && row.jsonOverHtml !== null)
  if (rows.length === 0) {
    return 'Collection read: no process count has both HTML and JSON measured, so the study\'s "almost twice" is not checked.'
  }
  const each = rows.map((row) => `${formatRatio(row.jsonOverHtml)} HTML's at ${processesText(row.processes)} ` +
    `(${formatRate(row.json.requestsPerSec)} vs ${formatRate(row.html.requestsPerSec)} req/s)`)
  const average = mean(rows.map((row) => row.jsonOverHtml))
  let verdict
  if (average <= 1) verdict = 'unlike the study, where JSON was "almost twice as" fast'
  else if (average < ALMOST_TWICE.low) verdict = 'a narrower gap than the study\'s "almost twice"'
  else if (average <= ALMOST_TWICE.high) verdict = 'close to the study\'s "almost twice"'
  else verdict = 'a wider gap than the study\'s "almost twice"'
  const label = described.label
  return `${label[0].toUpperCase()}${label.slice(1)}: JSON's requests per second were ${listText(each)}; ${verdict}.`
}

function dominantFunction (summary) {
  const rows = summary.dominance
  if (rows.length === 0) return 'No measured cell has a breakdown of its operation: which function owns the time is not shown.'
  const known = rows.filter((row) => row.studyFunction !== null)
  const matching = known.filter((row) => row.matches)
  const functions = [...new Set(matching.map((row) => `${row.studyFunction} (${row.label})`))]
  const shares = matching.map((row) => row.hereShare)
  const studyShares = matching.map((row) => row.studyPercent).filter(isNumber)
  let sentence
  if (known.length === 0) {
    return `The function with the largest share: ${listText(rows.map((row) => `${row.hereFunction} in ${row.title} (${formatShare(row.hereShare)})`))}; the study measured none of these operations.`
  }
  if (matching.length === known.length) {
    sentence = `In all ${known.length} measured cells the function with the largest share of response time is the study's: ${listText(functions)}, ` +
      'the one doing the database I/O'
  } else {
    const others = known.filter((row) => !row.matches).map((row) => `${row.title}: ${row.hereFunction} (${formatShare(row.hereShare)}; ` +
      `${row.studyFunction} ${formatShare(row.studyFunctionShare)})`)
    sentence = `In ${matching.length} of ${known.length} measured cells the function with the largest share of response time is the study's ` +
      `(the one doing the database I/O)${functions.length ? `: ${listText(functions)}` : ''}; elsewhere another function leads: ${listText(others)}`
  }
  if (shares.length) {
    sentence += `. Its share here: ${formatShare(Math.min(...shares))} to ${formatShare(Math.max(...shares))}`
    if (studyShares.length) sentence += ` (the study's Table 1: ${formatPercent(Math.min(...studyShares))} to ${formatPercent(Math.max(...studyShares))})`
  }
  const differences = matching.filter((row) => row.studyPercent !== null)
    .map((row) => row.hereShare * 100 - row.studyPercent)
  if (differences.length) {
    const average = mean(differences)
    sentence += `, on average ${Math.abs(average).toFixed(2)} points ${average >= 0 ? 'above' : 'below'} the study's figure for the same cell`
  }
  return sentence + '.'
}

function sizes (summary) {
  const ratios = summary.sizeRatios
  if (ratios.length === 0) return null
  const each = ratios.map((r) => `${formatRatio(r.here)} for ${r.label}${r.study !== null ? ` (study ${formatRatio(r.study)})` : ''}`)
  return `An HTML response is this many times the size of the JSON one: ${listText(each)}.`
}

module.exports = { jsonAgainstHtml, collectionReadRatio, dominantFunction, sizes }
