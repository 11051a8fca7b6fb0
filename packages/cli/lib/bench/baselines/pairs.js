'use strict'

const { median, round } = require('../../kernel/statistics')

// The app's repetitions and its untraced baseline's as pairs (bench/matrix.js runInterleaved: repetition k of
// each, run one right after the other, app, untraced, untraced, app, ...): what nodebench costs a request in each
// pair, and how often noise alone would set the pairs' differences as far from zero. On a machine whose load
// drifts, each pair's two repetitions share the machine of their moment, where the servers' ranges of
// repetitions mix the drift into both. Used by the report (data.js) and written to results.json (matrix.js).

/**
 * The pairs of two cells' repetitions (results.json `reps`: `startedAtMs`, `requestsPerSec`), or null unless
 * both ran as many repetitions, at least two, each with its start and a throughput, and each pair came wholly
 * before the next (their repetitions interleaved pair by pair). Older runs (no `startedAtMs`), one server's
 * repetitions all run before the other's, or a repetition missing on one side: null.
 */
function pairsOf (tracedReps, untracedReps) {
  const measured = (rep) => rep && Number.isFinite(rep.startedAtMs) &&
    Number.isFinite(rep.requestsPerSec) && rep.requestsPerSec > 0
  const usable = (reps) => Array.isArray(reps) && reps.length >= 2 && reps.every(measured)
  if (!usable(tracedReps) || !usable(untracedReps) || tracedReps.length !== untracedReps.length) return null
  const pairs = tracedReps.map((traced, k) => ({ traced, untraced: untracedReps[k] }))
  for (let k = 1; k < pairs.length; k++) {
    const before = Math.max(pairs[k - 1].traced.startedAtMs, pairs[k - 1].untraced.startedAtMs)
    if (before >= Math.min(pairs[k].traced.startedAtMs, pairs[k].untraced.startedAtMs)) return null
  }
  return pairs
}

/**
 * What the pairs say of nodebench's cost: each pair's added cost per request at saturation (1 / requests/s of
 * the traced repetition less that of the untraced one, in µs), their median and range, and the sign-flip chance
 * of their differences. Null where `pairsOf` finds no pairs.
 */
function pairedCostOf (tracedReps, untracedReps) {
  const pairs = pairsOf(tracedReps, untracedReps)
  if (pairs === null) return null
  const addedUs = pairs.map(({ traced, untraced }) => 1e6 / traced.requestsPerSec - 1e6 / untraced.requestsPerSec)
  const { chance, exact } = signFlipChance(addedUs)
  return {
    pairs: pairs.length,
    // Each pair's added µs a request, in the repetitions' order.
    addedUs: addedUs.map((us) => round(us)),
    median: round(median(addedUs)),
    range: { min: round(Math.min(...addedUs)), max: round(Math.max(...addedUs)) },
    chance,
    exact,
    // The smallest chance n pairs can give (all on one side): 2 / 2^n.
    leastChance: 2 / 2 ** pairs.length
  }
}

// Up to this many pairs every sign pattern is counted (2^20, about a million); beyond, a fixed sample of 2^16.
const EXACT_PAIRS = 20
const DRAWS = 2 ** 16

/**
 * An exact sign-flip (paired permutation) test, hand-written: if nodebench cost nothing, each pair's difference
 * were as likely the other way round, so each of the 2^n patterns of signs over the n differences is as likely.
 * The chance is the share of those patterns whose mean difference is at least as far from zero as the observed
 * one: 1 in 8 for four pairs all on one side (2 of 16), 1 in 32 for six. Exact up to EXACT_PAIRS pairs (every
 * pattern counted); with more (--reps up to 100), DRAWS patterns drawn by a fixed generator, so that a report
 * says the same each time, the observed pattern counted as one of them (`exact: false`).
 */
function signFlipChance (differences) {
  const n = differences.length
  const observed = Math.abs(differences.reduce((sum, d) => sum + d, 0))
  // Sums of the same numbers in another order differ in their last bits: a tie is a tie.
  const tolerance = 1e-9 * differences.reduce((sum, d) => sum + Math.abs(d), 0)
  const farAs = (signOf) => {
    let total = 0
    for (let k = 0; k < n; k++) total += signOf(k) ? -differences[k] : differences[k]
    return Math.abs(total) >= observed - tolerance
  }
  if (n <= EXACT_PAIRS) {
    let count = 0
    for (let pattern = 0; pattern < 2 ** n; pattern++) if (farAs((k) => (pattern >>> k) & 1)) count++
    return { chance: count / 2 ** n, exact: true }
  }
  let state = 0x9e3779b9
  const coin = () => {
    // xorshift32: a fixed sequence, no dependency.
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return state & 1
  }
  let count = 0
  for (let draw = 0; draw < DRAWS; draw++) if (farAs(() => coin())) count++
  return { chance: (count + 1) / (DRAWS + 1), exact: false }
}

module.exports = { pairsOf, pairedCostOf, signFlipChance }
