'use strict'

const { isNumber, formatCount, formatRate, formatShare, processesText, listText } = require('../../render/format')

// The servers side by side in words: the ladder from bare node:http to the traced app, and what limits the
// servers' figures. The ladder's table (tables.js) names its steps and writes its figures as its sentence does:
// STEP_NAMES, rangeText, microseconds.

const STEP_NAMES = Object.freeze({ node: 'bare node:http', express: 'Express', 'app-untraced': 'your app untraced', app: 'traced' })
const SERVER_NAMES = Object.freeze({ node: 'bare node:http', express: 'bare Express', 'app-untraced': 'the untraced app', app: 'the traced app' })

/** The ladder in one sentence. */
function ladderSentence (group, ladder) {
  const where = `${group.label} (${group.format})${group.processes === null ? '' : `, ${processesText(group.processes)}`}`
  const rates = ladder.steps.map((s) => `${STEP_NAMES[s.kind]} ${formatRate(s.requestsPerSec)}`)
  const serves = `This machine serves ${rates[0]} req/s${rates.length > 1 ? `, ${rates.slice(1).join(', ')}` : ''}`
  if (ladder.gapUs <= 0) return `${where}: ${serves}: the traced app is as fast as the bare server here (no gap to share).`
  const shares = ladder.steps.slice(1).map((s) => `${s.cost} ${formatShare(s.share)} (${formatUs(s.addedUs)})`)
  const missing = ladder.missing.length ? ` Not measured: ${listText(ladder.missing.map((kind) => STEP_NAMES[kind]))}.` : ''
  const noisy = ladder.steps.filter((s) => s.withinNoise).map((s) => {
    const before = ladder.steps[ladder.steps.indexOf(s) - 1]
    return `the repetitions of ${SERVER_NAMES[before.kind]} (${rangeText(before.range)} req/s) and ${SERVER_NAMES[s.kind]} ` +
      `(${rangeText(s.range)}) overlap, so ${s.cost}'s share is within this run's noise`
  })
  const noise = noisy.length ? ` ${capitalized(listText(noisy))}.` : ''
  return `${where}: ${serves}. Of the ${formatUs(ladder.gapUs)} a request costs above bare node:http, ${listText(shares)}.${noise}${missing}`
}

// Said after the cost when the traced app's snapshot says its requests' async context is kept by async hooks
// (docs/middleware.md, "Dependencies inside a segment": a dependency observed, on Node.js 20 or 22).
const HOOKED_CONTEXT = ' nodebench keeps the app\'s requests\' async context (it observed a dependency: a database driver, ' +
  'an outgoing call), and the app\'s Node.js keeps it with async hooks: every promise of the app pays for it, in requests ' +
  'that call nothing too (~10 µs a request on a real middleware stack). On Node.js 22, node ' +
  '--experimental-async-context-frame in the app\'s command (traced and untraced alike) takes that away; Node.js 24 needs nothing.'

/** What nodebench costs the app (data.js nodebenchCostOf) in one sentence, and its context's price where it is paid. */
function costSentence (group, cost) {
  return costFigureSentence(group, cost) + (cost.requestContext === 'async-hooks' ? HOOKED_CONTEXT : '')
}

function costFigureSentence (group, cost) {
  const where = `${group.label} (${group.format})${group.processes === null ? '' : `, ${processesText(group.processes)}`}`
  const rate = (side, unit) => `${formatRate(side.requestsPerSec)}${unit}${side.range === null ? '' : ` (${rangeText(side.range)})`}`
  const rates = `traced ${rate(cost.traced, ' req/s')}, untraced ${rate(cost.untraced, '')}`
  if (cost.paired) return pairedSentence(where, cost, rates)
  if (cost.withinNoise) return `${where}: nodebench's cost is within this run's noise: ${rates}; the repetitions overlap.`
  if (cost.addedUs <= 0) return `${where}: nodebench cost nothing measurable here: ${rates}.${chanceText(cost)}`
  const single = cost.traced.range === null || cost.untraced.range === null ? ' (one repetition each: no spread to judge it by)' : ''
  return `${where}: nodebench costs this app ${formatUs(cost.addedUs)} a request at saturation, ${formatShare(cost.share)} ` +
    `of the untraced app's ${formatUs(cost.untraced.costUs)} (1 / requests/s: ${rates})${single}.${chanceText(cost)}`
}

/** The cost judged pair by pair (data.js nodebenchCostOf, pairs.js): the pairs' median and range, their chance. */
function pairedSentence (where, cost, rates) {
  const { paired } = cost
  const pairs = `${paired.pairs} interleaved pairs`
  const spread = `${microseconds(paired.range.min)} to ${formatUs(paired.range.max)}`
  if (cost.withinNoise) {
    return `${where}: nodebench's cost is within this run's noise: the ${pairs} differ by ${spread} a request ` +
      `(1 / requests/s: ${rates}).${pairedChanceText(paired)}`
  }
  if (cost.addedUs <= 0) {
    return `${where}: nodebench cost nothing measurable here: ${rates}; the ${pairs} differ by ${spread} a request.${pairedChanceText(paired)}`
  }
  return `${where}: nodebench costs this app ${formatUs(cost.addedUs)} a request at saturation (the median of ${pairs}, ` +
    `${spread}), ${formatShare(cost.share)} of the untraced app's ${formatUs(cost.untraced.costUs)} (1 / requests/s: ${rates}).` +
    pairedChanceText(paired)
}

// Pairs needed for noise alone to set them all on one side less than one run in 20: 2 / 2^6 is 1 in 32.
const PAIRS_TO_TELL = 6

/** How often noise alone would set the pairs' differences as far from zero (pairs.js signFlipChance). */
function pairedChanceText (paired) {
  const odds = `Noise alone sets ${paired.pairs} interleaved pairs' differences this far from zero ` +
    `${paired.exact ? '' : 'about '}one run in ${formatCount(Math.round(1 / paired.chance))}`
  return paired.leastChance > 0.05 ? ` ${odds}: --reps ${PAIRS_TO_TELL} or more tells it from the noise.` : ` ${odds}.`
}

// Repetitions a server needs (the same for both) for noise alone to part them less than one run in 20.
const REPS_TO_TELL = 4

/**
 * How often noise alone would part the servers' repetitions as this run's are (data.js separationChance): a
 * judgement that holds when the repetitions were interleaved, and holds only if the machine did not drift when
 * one server's ran after the other's (said so).
 */
function chanceText (cost) {
  if (cost.chance === null || cost.chance === undefined) return ''
  const which = cost.interleaved ? 'interleaved repetitions' : 'repetitions'
  const odds = `Noise alone parts ${cost.reps.traced} and ${cost.reps.untraced} ${which} so one run in ${formatCount(Math.round(1 / cost.chance))}`
  const drift = cost.interleaved === false
    ? ' One server\'s ran after the other\'s: a machine whose load drifted meanwhile adds its drift to the cost.'
    : ''
  return cost.chance > 0.05 ? ` ${odds}: --reps ${REPS_TO_TELL} or more tells it from the noise.${drift}` : ` ${odds}.${drift}`
}

function rangeText (range) {
  return `${formatRate(range.min)} to ${formatRate(range.max)}`
}

function capitalized (text) {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function formatUs (value) {
  return isNumber(value) ? `${microseconds(value)} µs` : '-'
}

function microseconds (value) {
  return isNumber(value) ? (Math.abs(value) >= 100 ? formatCount(value) : value.toFixed(1)) : '-'
}

/** What limits the servers' figures: the run's own notes, untraced servers, a busy machine, full listen queues. */
function targetsNotes (results, targets, entries) {
  const notes = [...(results.targetNotes ?? [])]
  const untraced = targets.filter((t) => !t.traced).map((t) => `${t.name} (${t.label})`)
  if (untraced.length) {
    notes.push(`${listText(untraced)} ${untraced.length === 1 ? 'runs' : 'run'} without nodebench: no breakdown, only the load's figures and the processes' CPU and memory.`)
  }
  for (const entry of entries.filter(({ cell, target }) => target.kind === 'app-untraced' && cell.tracedAnyway)) {
    notes.push(`The app without nodebench still answered /__nodebench (${entry.cell.scenario}, ${entry.cell.format}): it ignores NODEBENCH=off, so its "untraced" cells ran traced.`)
  }
  if (results.openFiles && results.openFiles.enough === false) notes.push(results.openFiles.note)
  const busy = busyMachine(results.machine)
  if (busy !== null) notes.push(busy)
  const overflowed = entries.filter(({ cell }) => cell.listenQueue && cell.listenQueue.overflows > 0)
  if (overflowed.length) {
    const each = overflowed.map(({ cell, target }) => `${target.name} ${formatCount(cell.listenQueue.overflows)}`)
    notes.push(`Connection attempts turned away by a full listen queue while the load ran (the kernel's ListenOverflows): ${listText(each)}. ` +
      'Each waits for its SYN to be sent again (1 s, then 3 s): the seconds of the longest requests. A backlog is 511 by default for ' +
      'Node.js and Apache httpd, fewer than 1,000 clients connecting at once.')
  }
  return notes
}

/** A sentence when other work kept the machine's cores busy during the run (its load average above its cores). */
function busyMachine (machine) {
  const load = machine && machine.loadAverage
  if (!load || !Array.isArray(load.start) || !isNumber(machine.cores)) return null
  const highest = Math.max(load.start[0], ...(Array.isArray(load.end) ? [load.end[0]] : []))
  if (!(highest > machine.cores)) return null
  return `The machine was busy with other work: its load average was ${load.start[0]} when the run started` +
    `${Array.isArray(load.end) ? ` and ${load.end[0]} when it ended` : ''}, on ${machine.cores} cores. Every server had less of the CPU ` +
    'than on an idle machine: compare the servers with each other, not with figures taken elsewhere, and see the CPU by process.'
}

module.exports = { ladderSentence, costSentence, targetsNotes, STEP_NAMES, rangeText, microseconds }
